#include "mockllm/fault.h"

#include <array>
#include <cstdint>

#include "base/format.h"
#include "base/json_read.h"
#include "mockllm/canonical.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;

constexpr std::array<std::string_view, 19> kFaultKeys = {"status",
                                                         "body",
                                                         "retry_after",
                                                         "retry_after_ms",
                                                         "headers",
                                                         "delay_ms",
                                                         "cut_after_bytes",
                                                         "cut_after_events",
                                                         "drop_done",
                                                         "malformed_event",
                                                         "resplit",
                                                         "seed",
                                                         "crlf",
                                                         "bom",
                                                         "keepalive_ms",
                                                         "error_event",
                                                         "stall_ms",
                                                         "stall_after_events",
                                                         "times"};

std::string KnownKeys() {
  std::string out;
  for (auto k : kFaultKeys) {
    if (!out.empty()) out += ", ";
    out += k;
  }
  return out;
}

std::unexpected<Error> Wrong(std::string pointer, std::string_view expected, const OJson& got) {
  return std::unexpected(
      Error::AtPointer(std::move(pointer), Format("expected {}, got {}", expected, DumpJson(got))));
}

std::expected<std::int64_t, Error> Count(const OJson& j, std::string_view key) {
  const OJson& v = j[std::string(key)];
  if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<std::int64_t>() < 0) ||
      (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))) {
    return Wrong(Format("/{}", key), "a non-negative integer", v);
  }
  if (key.ends_with("_ms") && v.get<std::int64_t>() > kMaxTraceMs) {
    return Wrong(Format("/{}", key), Format("at most {} ms (about 31 years)", kMaxTraceMs), v);
  }
  return v.get<std::int64_t>();
}

std::expected<bool, Error> Flag(const OJson& j, std::string_view key) {
  const OJson& v = j[std::string(key)];
  if (!v.is_boolean()) return Wrong(Format("/{}", key), "true or false", v);
  return v.get<bool>();
}

}  // namespace

bool Fault::Empty() const {
  return !status && delay_ms == 0 && !cut_after_bytes && !cut_after_events && !drop_done &&
         !malformed_event && !resplit && !crlf && !bom && keepalive_ms == 0 && !error_event_after &&
         stall_ms == 0;
}

std::expected<Fault, Error> FaultFromJson(const OJson& j) {
  if (!j.is_object()) return Wrong("", "an object", j);
  Fault f;
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = false;
    for (auto k : kFaultKeys) known = known || it.key() == k;
    if (!known) {
      return std::unexpected(Error::AtPointer(
          "/" + it.key(), Format("unknown fault \"{}\" (known: {})", it.key(), KnownKeys())));
    }
  }
#define MOCKLLM_COUNT(key, field)              \
  if (j.contains(key)) {                       \
    auto v = Count(j, key);                    \
    if (!v) return std::unexpected(v.error()); \
    field = *v;                                \
  }
#define MOCKLLM_FLAG(key, field)               \
  if (j.contains(key)) {                       \
    auto v = Flag(j, key);                     \
    if (!v) return std::unexpected(v.error()); \
    field = *v;                                \
  }
  if (j.contains("status")) {
    const OJson& s = j["status"];
    // A 1xx is no final answer: 200-599 (docs/mockllm.md, "Faults").
    if (!s.is_number_integer() || (s.is_number_unsigned() && s.get<std::uint64_t>() > 599) ||
        s.get<std::int64_t>() < 200 || s.get<std::int64_t>() > 599) {
      return Wrong("/status", "a final HTTP status 200-599", s);
    }
    f.status = s.get<int>();
  }
  if (j.contains("body")) f.body = j["body"];
  if (j.contains("retry_after")) {
    if (!j["retry_after"].is_number() || j["retry_after"].get<double>() < 0) {
      return Wrong("/retry_after", "a non-negative number of seconds", j["retry_after"]);
    }
    f.retry_after = j["retry_after"].get<double>();
  }
  MOCKLLM_COUNT("retry_after_ms", f.retry_after_ms)
  if (j.contains("headers")) {
    const OJson& h = j["headers"];
    if (!h.is_object()) return Wrong("/headers", "an object of strings", h);
    for (auto it = h.begin(); it != h.end(); ++it) {
      const std::string at = PointerAppend("/headers", it.key());
      if (!it->is_string()) return Wrong(at, "a string", *it);
      if (auto problem = ResponseHeaderProblem(it.key(), it->get_ref<const std::string&>()))
        return std::unexpected(Error::AtPointer(at, *problem));
    }
    f.headers = h;
  }
  MOCKLLM_COUNT("delay_ms", f.delay_ms)
  MOCKLLM_COUNT("cut_after_bytes", f.cut_after_bytes)
  MOCKLLM_COUNT("cut_after_events", f.cut_after_events)
  MOCKLLM_FLAG("drop_done", f.drop_done)
  MOCKLLM_COUNT("malformed_event", f.malformed_event)
  MOCKLLM_FLAG("resplit", f.resplit)
  if (j.contains("seed")) {
    const OJson& seed = j["seed"];
    if (!seed.is_number_unsigned() && (!seed.is_number_integer() || seed.get<std::int64_t>() < 0)) {
      return Wrong("/seed", "a non-negative integer", j["seed"]);
    }
    f.seed = j["seed"].get<std::uint64_t>();
  }
  MOCKLLM_FLAG("crlf", f.crlf)
  MOCKLLM_FLAG("bom", f.bom)
  MOCKLLM_COUNT("keepalive_ms", f.keepalive_ms)
  if (f.keepalive_ms == 0 && j.contains("keepalive_ms")) {
    return Wrong("/keepalive_ms", "a positive number of milliseconds", j["keepalive_ms"]);
  }
  if (j.contains("error_event")) {
    const OJson& e = j["error_event"];
    if (e.is_boolean() && e.get<bool>()) {
      f.error_event_after = 0;
    } else if (e.is_object()) {
      f.error_event_after = 0;
      for (auto it = e.begin(); it != e.end(); ++it) {
        if (it.key() == "after_events") {
          if (!it->is_number_integer() || it->get<std::int64_t>() < 0) {
            return Wrong("/error_event/after_events", "a non-negative integer", *it);
          }
          f.error_event_after = it->get<std::int64_t>();
        } else if (it.key() == "error") {
          if (!it->is_object()) return Wrong("/error_event/error", "an object", *it);
          f.error_event_error = *it;
        } else if (it.key() == "as") {
          if (*it != "error" && *it != "failed")
            return Wrong("/error_event/as", "\"error\" or \"failed\"", *it);
          f.error_event_failed = *it == "failed";
        } else {
          return std::unexpected(Error::AtPointer(
              "/error_event/" + it.key(),
              Format("unknown field \"{}\" (known: after_events, error, as)", it.key())));
        }
      }
    } else if (!(e.is_boolean() && !e.get<bool>())) {
      return Wrong("/error_event", "true or {\"after_events\":K,\"error\":{…},\"as\":…}", e);
    }
  }
  MOCKLLM_COUNT("stall_ms", f.stall_ms)
  MOCKLLM_COUNT("stall_after_events", f.stall_after_events)
  MOCKLLM_COUNT("times", f.times)
  if (f.times && *f.times == 0) return Wrong("/times", "a positive number of attempts", j["times"]);
#undef MOCKLLM_COUNT
#undef MOCKLLM_FLAG
  return f;
}

std::expected<void, Error> AddFaultFlag(OJson& into, std::string_view flag) {
  const auto eq = flag.find('=');
  const std::string key(flag.substr(0, eq));
  if (key.empty())
    return std::unexpected(Error{Format("--fault \"{}\": expected KEY[=VALUE]", flag)});
  OJson value = true;
  if (eq != std::string_view::npos) {
    const std::string text(flag.substr(eq + 1));
    value = llmconform::ReadOrderedJsonOrDiscarded(text);
    if (value.is_discarded()) value = text;
  }
  OJson one = OJson::object();
  one[key] = value;
  if (auto f = FaultFromJson(one); !f) {
    return std::unexpected(Error{Format("--fault {}: {}", flag, f.error().what)});
  }
  into[key] = std::move(value);
  return {};
}

OJson MergeFaults(const OJson& base, const OJson& over) {
  OJson out = base.is_object() ? base : OJson::object();
  if (over.is_object()) {
    for (auto it = over.begin(); it != over.end(); ++it) out[it.key()] = it.value();
  }
  return out;
}

}  // namespace llmconform::mockllm

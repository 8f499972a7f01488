#include "protocols/wire/surface_reading.h"

#include <limits>

#include "base/format.h"
#include "base/json_read.h"
#include "base/utf8.h"

namespace llmconform::wire {
namespace {

// At most this many distinct unmodelled event types are named.
constexpr std::size_t kMaxOtherEvents = 64;

}  // namespace

void FindingLog::Report(std::string_view rule, std::size_t event, std::string_view pointer,
                        std::string message) {
  if (reported_.contains(rule)) {
    ++repeats_[std::string(rule)];
    return;
  }
  reported_.emplace(std::string(rule), findings_.size());
  const std::string where = event == 0 ? std::string("the stream") : Format("event {}", event);
  std::string text = body_             ? Format("{}: {}", pointer.empty() ? "/" : pointer, message)
                     : pointer.empty() ? Format("{}: {}", where, message)
                                       : Format("{} {}: {}", where, pointer, message);
  findings_.push_back({std::string(rule), std::move(text), event, std::string(pointer)});
}

std::vector<LocatedFinding> FindingLog::Take() {
  for (const auto& [rule, n] : repeats_) {
    findings_[reported_[rule]].message += Format(" (and {} more)", n);
  }
  repeats_.clear();
  return std::move(findings_);
}

void OtherEvents::Note(std::string_view type, std::vector<std::string>& names) {
  if (seen_.contains(type)) return;
  if (seen_.size() >= kMaxOtherEvents) {
    ++dropped_;
    return;
  }
  seen_.emplace(type);
  names.emplace_back(type);
}

void OtherEvents::Finish(std::vector<std::string>& names) const {
  if (dropped_ > 0) names.push_back(Format("… {} more types", dropped_));
}

std::optional<NamedEvent> ReadNamedEvent(const SseEventView& event, std::string_view prefix,
                                         std::size_t number, FindingLog& log) {
  const std::string json_rule = Format("{}-EVENT-JSON", prefix);
  const std::string name_rule = Format("{}-EVENT-NAME", prefix);
  NamedEvent out{ReadJsonOrDiscarded(event.data), ""};
  if (out.data.is_discarded() || !out.data.is_object()) {
    log.Report(json_rule, number, "",
               out.data.is_discarded()
                   ? Format("data is not JSON: {}", CapText(event.data, 80))
                   : Format("data is {}, not an object", JsonTypeNameWithArticle(out.data)));
    return std::nullopt;
  }
  out.type = StringAt(out.data, "type");
  const bool named = event.event != "message";
  if (out.type.empty()) {
    log.Report(json_rule, number, "/type",
               named ? Format("no \"type\" in data; the event's name '{}' is taken", event.event)
                     : std::string("no \"type\" in data and the event has no name; skipped"));
    if (!named) return std::nullopt;
    out.type = std::string(event.event);
  } else if (!named) {
    log.Report(name_rule, number, "",
               Format("the event has no 'event:' name; its type is '{}'", out.type));
  } else if (event.event != out.type) {
    log.Report(name_rule, number, "/type",
               Format("type '{}' differs from the event's name '{}'", out.type, event.event));
  }
  return out;
}

std::optional<std::int64_t> IndexAt(const Json& data, std::string_view key) {
  if (!data.is_object()) return std::nullopt;
  auto it = data.find(key);
  if (it == data.end()) return std::nullopt;
  if (it->is_number_unsigned()) {
    const auto v = it->get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return std::nullopt;
    return static_cast<std::int64_t>(v);
  }
  if (it->is_number_integer() && it->get<std::int64_t>() >= 0) return it->get<std::int64_t>();
  return std::nullopt;
}

std::string StringAt(const Json& j, std::string_view key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace llmconform::wire

#include "harness/suites/client_suite.h"

#include <chrono>
#include <cstdint>

#include "base/format.h"
#include "base/json_fields.h"
#include "harness/http_transport.h"
#include "harness/suites/client_checks.h"
#include "harness/suites/client_reading.h"
#include "harness/suites/client_request.h"

namespace llmconform::harness {
namespace {

using reports::CheckResult;

constexpr auto kClientTimeout = std::chrono::seconds(30);
const JsonPointer kClientInput("/input");

class ClientSuite final : public ProtocolSuite {
 public:
  std::string_view protocol() const override { return "client"; }

  std::expected<void, Error> ReadInput(const Scenario& s) const override {
    const Json& in = s.input;
    if (auto surface = client_suite::InputSurface(in); !surface)
      return std::unexpected(surface.error());
    if (auto m = RequireString(in, kClientInput, "model"); !m) return std::unexpected(m.error());
    if (auto m = RequireArray(in, kClientInput, "messages"); !m) return std::unexpected(m.error());
    if (auto b = OptionalBool(in, kClientInput, "stream"); !b) return std::unexpected(b.error());
    if (in.contains("tools") && !in["tools"].is_array())
      return std::unexpected(ErrorAt(kClientInput / "tools", "expected array"));
    auto options = OptionalObject(in, kClientInput, "options");
    if (!options) return std::unexpected(options.error());
    if (*options) {
      const JsonPointer at = kClientInput / "options";
      if (auto n = OptionalInt(**options, at, "max_retries"); !n) {
        return std::unexpected(n.error());
      } else if (*n && (**n < 0 || **n > 10)) {
        return std::unexpected(ErrorAt(at / "max_retries", "expected 0 to 10"));
      }
      if (auto n = OptionalInt(**options, at, "timeout_ms"); !n) {
        return std::unexpected(n.error());
      } else if (*n && (**n < 1 || **n > 600000)) {
        return std::unexpected(ErrorAt(at / "timeout_ms", "expected 1 to 600000"));
      }
      if (auto p = OptionalObject(**options, at, "params"); !p) return std::unexpected(p.error());
    }
    if (auto r = client_suite::RequestFor(in); !r) return std::unexpected(r.error());
    return {};
  }

  std::expected<Observation, Error> Drive(const Scenario& s, const DriveContext& ctx) override {
    if (auto ok = ReadInput(s); !ok) return std::unexpected(ok.error().Within(s.name));
    Observation obs;
    if (ctx.llm_base_url.empty()) return obs;
    const auto request = client_suite::RequestFor(s.input);  // ReadInput checked it
    std::string streamed;
    auto transport = MakeHttpTransport(client_suite::ServerRoot(ctx.llm_base_url));
    // The call's timeout: the scenario's options.timeout_ms, else kClientTimeout.
    const Json& timeout_ms = MemberOf(MemberOf(s.input, "options"), "timeout_ms");
    const auto timeout = timeout_ms.is_number_integer()
                             ? std::chrono::milliseconds(timeout_ms.get<std::int64_t>())
                             : std::chrono::milliseconds(kClientTimeout);
    auto response = transport->PostJson(request->path, request->body.dump(), timeout,
                                        [&](std::string_view bytes) {
                                          streamed.append(bytes);
                                          return true;
                                        });
    client_suite::Reply reply{.surface = request->surface};
    std::string content_type;
    if (response) {
      reply.status = response->status;
      if (auto t = response->headers.find("content-type"); t != response->headers.end())
        content_type = t->second;
      if (response->body.empty()) response->body = streamed;
      reply.body = response->body;
    } else {
      // Broken off after the headers (a cut): what arrived is what was read.
      reply.body = streamed;
      reply.cut = true;
      reply.stream = true;
    }
    reply.content_type = content_type;
    obs.outputs = client_suite::ReadReply(reply);
    // Broken off: by the call's timeout (the transport's error "POST <url>: timed
    // out after N ms"; the client gave up, whatever the bytes read so far say),
    // else by the server (a cut, unless the bytes read name another error).
    if (!response) {
      const std::string& why = response.error().message;
      if (why.find("timed out") != std::string::npos)
        obs.outputs["error"] = {{"status", nullptr}, {"kind", "timeout"}, {"message", why}};
      else if (obs.outputs["error"].is_null())
        obs.outputs["error"] = {{"status", nullptr}, {"kind", "cut"}, {"message", why}};
    }
    return obs;
  }

  std::vector<CheckResult> Check(const Scenario& s, const Observation& obs) const override {
    Json entry;
    for (const Json& e : obs.journal)
      if (e.is_object() && e.contains("replied")) entry = e;
    const Json reference = client_suite::ReadReplied(MemberOf(entry, "replied"));
    std::vector<CheckResult> out;
    for (const auto& rule : s.rules)
      out.push_back(RunRuleCheck(client_suite::Rules(), rule,
                                 client_suite::Context{s, obs, entry, reference}));
    return out;
  }
};

}  // namespace

std::unique_ptr<ProtocolSuite> MakeClientSuite() { return std::make_unique<ClientSuite>(); }

}  // namespace llmconform::harness

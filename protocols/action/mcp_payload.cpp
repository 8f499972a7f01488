#include "protocols/action/mcp_payload.h"

#include "base/format.h"
#include "base/json_read.h"
#include "protocols/action/json_spelling.h"
#include "protocols/action/json_text.h"

namespace llmconform::action {
namespace {

std::unexpected<Error> Bad(std::string_view why) {
  return std::unexpected(Error{Format("__MCP__ payload: {}", why)});
}

// The string at `key` of `object`, or an error naming its JSON pointer.
std::expected<std::string, Error> StringAt(const OJson& object, std::string_view pointer,
                                           const char* key) {
  const auto it = object.find(key);
  if (it == object.end()) return Bad(Format("{}/{}: missing", pointer, key));
  if (!it->is_string()) {
    return Bad(
        Format("{}/{}: expected a string, got {}", pointer, key, JsonTypeNameWithArticle(*it)));
  }
  return it->get<std::string>();
}

std::expected<void, Error> OnlyKeys(const OJson& object, std::string_view pointer,
                                    std::initializer_list<std::string_view> keys) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    bool known = false;
    for (const auto key : keys) known = known || it.key() == key;
    if (!known) {
      const std::string where = pointer.empty() ? "" : Format("{}: ", pointer);
      return Bad(Format("{}unexpected member {}", where, QuoteJson(it.key())));
    }
  }
  return {};
}

}  // namespace

std::expected<std::string, Error> BuildMcpPayload(const Command& command) {
  // Written out rather than dumped whole, so that args_json goes in as it is.
  try {
    return Format("{}{{\"event\":{},\"payload\":{{\"session_id\":{},\"command\":{},\"args\":{}}}}}",
                  kMcpPrefix, OJson(kMcpEvent).dump(), OJson(command.session_id).dump(),
                  OJson(command.command).dump(), command.ArgsText());
  } catch (const nlohmann::json::exception& e) {
    return Bad(e.what());
  }
}

std::expected<Command, Error> ParseMcpPayload(std::string_view payload) {
  if (!payload.starts_with(kMcpPrefix)) {
    return Bad(Format("expected the prefix {}", QuoteJson(kMcpPrefix)));
  }
  payload.remove_prefix(kMcpPrefix.size());
  const OJson message = ReadOrderedJsonOrDiscarded(payload);
  if (message.is_discarded()) return Bad("the text after the prefix is not valid JSON");
  if (!message.is_object())
    return Bad(Format("expected an object, got {}", JsonTypeNameWithArticle(message)));
  if (auto only = OnlyKeys(message, "", {"event", "payload"}); !only) {
    return std::unexpected(only.error());
  }
  auto event = StringAt(message, "", "event");
  if (!event) return std::unexpected(event.error());
  if (*event != kMcpEvent) {
    return Bad(Format("/event: expected {}, got {}", QuoteJson(kMcpEvent), QuoteJson(*event)));
  }
  const auto body = message.find("payload");
  if (body == message.end()) return Bad("/payload: missing");
  if (!body->is_object()) {
    return Bad(Format("/payload: expected an object, got {}", JsonTypeNameWithArticle(*body)));
  }
  if (auto only = OnlyKeys(*body, "/payload", {"session_id", "command", "args"}); !only) {
    return std::unexpected(only.error());
  }
  auto session_id = StringAt(*body, "/payload", "session_id");
  if (!session_id) return std::unexpected(session_id.error());
  auto name = StringAt(*body, "/payload", "command");
  if (!name) return std::unexpected(name.error());
  const auto args = body->find("args");
  if (args == body->end()) return Bad("/payload/args: missing");
  if (!args->is_object()) {
    return Bad(Format("/payload/args: expected an object, got {}", JsonTypeNameWithArticle(*args)));
  }
  return Command{std::move(*session_id), std::move(*name), *args,
                 SpelledJsonAt(payload, {"payload", "args"}).value_or(std::string())};
}

}  // namespace llmconform::action

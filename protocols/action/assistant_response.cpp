#include "protocols/action/assistant_response.h"

#include <algorithm>
#include <cstddef>

#include "base/format.h"
#include "protocols/action/json_spelling.h"
#include "protocols/action/json_text.h"

namespace llmconform::action {
namespace {

constexpr std::string_view kWhitespace = " \t\n\r\f\v";

std::string_view Trim(std::string_view s) {
  const std::size_t begin = s.find_first_not_of(kWhitespace);
  if (begin == std::string_view::npos) return {};
  const std::size_t end = s.find_last_not_of(kWhitespace);
  return s.substr(begin, end - begin + 1);
}

// The inside of a code fence that surrounds all of `s` (already trimmed):
// a run of n >= 3 backticks, an info string without backticks up to the first
// newline, the body, and a closing run of at least n backticks at the very end.
std::optional<std::string_view> FenceBody(std::string_view s) {
  const std::size_t open = std::min(s.find_first_not_of('`'), s.size());
  if (open < 3) return std::nullopt;
  const std::size_t newline = s.find('\n', open);
  if (newline == std::string_view::npos) return std::nullopt;
  if (s.substr(open, newline - open).find('`') != std::string_view::npos) return std::nullopt;
  const std::size_t last = s.find_last_not_of('`');  // not npos: s[newline] is '\n'
  const std::size_t close = last + 1;
  if (s.size() - close < open) return std::nullopt;
  return Trim(s.substr(newline + 1, close - newline - 1));
}

// Whether the arrays and objects of `s` nest deeper than `limit`, counting
// brackets outside string literals. Exact for valid JSON; for invalid JSON the
// answer does not matter, the parser rejects it anyway.
bool NestsDeeperThan(std::string_view s, int limit) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : s) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > limit) return true;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return false;
}

// Why `candidate` (the reply from its first `{`) is not a JSON object, for
// ACT-1. Only called on the failure path.
std::string WhyNotJson(std::optional<std::string_view> candidate) {
  if (!candidate) return "there is no closing \"}\"";
  if (NestsDeeperThan(*candidate, kMaxJsonDepth)) {
    return Format("it nests deeper than {} levels", kMaxJsonDepth);
  }
  try {
    const OJson parsed = OJson::parse(candidate->begin(), candidate->end());
    return Format("it parses as {}",
                  JsonTypeNameWithArticle(parsed));  // not reached from "{" to "}"
  } catch (const nlohmann::json::parse_error& e) {
    // what() is "[json.exception.parse_error.101] parse error at line 1, column 9: …";
    // its "last read" part may quote the reply, so keep it only if it is valid UTF-8.
    std::string_view what = e.what();
    const std::size_t tag_end = what.find("] ");
    if (tag_end != std::string_view::npos) what.remove_prefix(tag_end + 2);
    if (IsValidUtf8(what)) return std::string(what);
    return Format("parse error at byte {}", e.byte);
  } catch (const nlohmann::json::exception& e) {
    return e.what();
  }
}

bool IsSupported(const std::vector<std::string>& supported, const std::string& command) {
  return std::find(supported.begin(), supported.end(), command) != supported.end();
}

std::string SupportedList(const std::vector<std::string>& supported) {
  if (supported.empty()) return "none";
  std::string out;
  for (const auto& s : supported) {
    if (!out.empty()) out += ", ";
    out += QuoteJson(s);
  }
  return out;
}

// Reads the fields of a JSON reply.
class ObjectReader {
 public:
  // `text`: the JSON text `reply` was parsed from.
  ObjectReader(const OJson& reply, std::string_view text,
               std::optional<std::string_view> request_session_id,
               const std::vector<std::string>& supported, AssistantResponse& out)
      : reply_(reply),
        text_(text),
        request_session_id_(request_session_id),
        supported_(supported),
        out_(out) {}

  void Read() {
    ReadText();
    const auto command = reply_.find("command");
    if (command == reply_.end() || command->is_null()) return;  // a plain answer
    ReadCommandName(*command);
    ReadSessionId();
    ReadArgs();
    if (keep_) {
      out_.command = Command{std::move(session_id_), std::move(name_), std::move(args_),
                             SpelledJsonAt(text_, {"args"}).value_or(std::string())};
    }
  }

 private:
  void ReadText() {
    const auto text = reply_.find("text");
    if (text == reply_.end()) {
      Add("ACT-3", "\"text\" is missing; the text is \"\"");
    } else if (!text->is_string()) {
      Add("ACT-3", Format("\"text\" is {}, expected a string; the text is \"\"",
                          JsonTypeNameWithArticle(*text)));
    } else {
      out_.text = text->get_ref<const std::string&>();
    }
  }

  void ReadCommandName(const OJson& command) {
    if (!command.is_string()) {
      Drop("ACT-5",
           Format("\"command\" is {}, expected a string", JsonTypeNameWithArticle(command)));
      return;
    }
    name_ = command.get_ref<const std::string&>();
    label_ = Format("command {}", QuoteJson(name_));
    if (!IsSupported(supported_, name_)) {
      Drop("ACT-6", Format("not a supported command (supported: {})", SupportedList(supported_)));
    }
  }

  void ReadSessionId() {
    const auto field = reply_.find("session_id");
    const bool has_field = field != reply_.end();
    if (request_session_id_ && !request_session_id_->empty()) {
      if (!IsValidUtf8(*request_session_id_)) {
        Drop("ACT-13", "the request's session id is not valid UTF-8");
        return;
      }
      session_id_ = std::string(*request_session_id_);
      const std::string request_quoted = QuoteJson(session_id_);
      if (!has_field) {
        Add("ACT-4", Format("\"session_id\" is missing; the request's session id {} is used",
                            request_quoted));
      } else if (!field->is_string()) {
        Add("ACT-4",
            Format("\"session_id\" is {}, expected a string; the request's session id {} is used",
                   JsonTypeNameWithArticle(*field), request_quoted));
      } else if (field->get_ref<const std::string&>() != session_id_) {
        Add("ACT-4",
            Format("\"session_id\" {} differs from the request's {}; the request's is used",
                   QuoteJson(field->get_ref<const std::string&>()), request_quoted));
      }
      return;
    }
    if (!has_field) {
      Drop("ACT-4", "no session id: the request has none and \"session_id\" is missing");
    } else if (!field->is_string()) {
      Drop("ACT-4", Format("no session id: the request has none and \"session_id\" is {}",
                           JsonTypeNameWithArticle(*field)));
    } else if (field->get_ref<const std::string&>().empty()) {
      Drop("ACT-4", "no session id: the request has none and \"session_id\" is empty");
    } else {
      session_id_ = field->get_ref<const std::string&>();
    }
  }

  void ReadArgs() {
    const auto args = reply_.find("args");
    if (args == reply_.end()) {
      Drop("ACT-7", "\"args\" is missing");
      return;
    }
    if (!args->is_object()) {
      Drop("ACT-7", Format("\"args\" is {}, expected an object", JsonTypeNameWithArticle(*args)));
      return;
    }
    const auto app_name = args->find("app_name");
    if (app_name == args->end()) {
      Drop("ACT-8", "args.app_name is missing");
    } else if (!app_name->is_string()) {
      Drop("ACT-8", Format("args.app_name is {}, expected a non-empty string",
                           JsonTypeNameWithArticle(*app_name)));
    } else if (app_name->get_ref<const std::string&>().empty()) {
      Drop("ACT-8", "args.app_name is empty");
    }
    if (keep_) args_ = *args;
  }

  void Add(std::string rule, std::string message) {
    out_.findings.push_back({std::move(rule), std::move(message)});
  }
  void Drop(std::string rule, std::string_view why) {
    keep_ = false;
    Add(std::move(rule), Format("{} dropped: {}", label_, why));
  }

  const OJson& reply_;
  const std::string_view text_;
  const std::optional<std::string_view> request_session_id_;
  const std::vector<std::string>& supported_;
  AssistantResponse& out_;
  bool keep_ = true;
  std::string label_ = "the command";
  std::string name_;
  std::string session_id_;
  OJson args_;
};

}  // namespace

const std::vector<std::string>& DefaultSupportedCommands() {
  static const std::vector<std::string> kDefault = {"open_app"};
  return kDefault;
}

AssistantResponse ParseAssistantResponse(std::string_view reply,
                                         std::optional<std::string_view> request_session_id,
                                         const std::vector<std::string>& supported_commands) {
  AssistantResponse out;
  const std::string_view trimmed = Trim(reply);
  const std::optional<std::string_view> fence_body = FenceBody(trimmed);
  const std::string_view content = fence_body ? *fence_body : trimmed;

  const std::size_t first = content.find('{');
  const std::size_t last = content.rfind('}');
  std::optional<std::string_view> candidate;
  if (first != std::string_view::npos && last != std::string_view::npos && first < last) {
    candidate = content.substr(first, last - first + 1);
  }
  OJson object;
  if (candidate && !NestsDeeperThan(*candidate, kMaxJsonDepth)) {
    object = OJson::parse(candidate->begin(), candidate->end(), nullptr,
                          /*allow_exceptions=*/false);
  }
  if (!object.is_object()) {  // plain text (a failed parse is "discarded", not an object)
    out.text = std::string(trimmed);
    if (content.starts_with('{')) {
      out.findings.push_back(
          {"ACT-1", Format("the reply begins with \"{{\" but is not a JSON object ({}); it is read "
                           "as plain text",
                           WhyNotJson(candidate))});
    }
    return out;
  }

  if (fence_body) out.findings.push_back({"ACT-2", "the JSON object is wrapped in a code fence"});
  const std::size_t before = first;
  const std::size_t after = content.size() - last - 1;
  if (before > 0 || after > 0) {
    out.findings.push_back(
        {"ACT-2", Format("the JSON object has text around it ({} bytes before it, {} after it)",
                         before, after)});
  }
  ObjectReader(object, *candidate, request_session_id, supported_commands, out).Read();
  return out;
}

}  // namespace llmconform::action

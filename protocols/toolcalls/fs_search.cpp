// fs.search: ToolHost::Search (contract in tool_host.h).
#include <re2/re2.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <vector>

#include "base/format.h"
#include "base/utf8.h"
#include "protocols/toolcalls/tool_args.h"
#include "protocols/toolcalls/tool_host.h"
#include "protocols/toolcalls/tool_support.h"

namespace llmconform::toolcalls {
namespace {

constexpr std::size_t kBinaryProbe = 8 * 1024;
constexpr std::size_t kRegexLineBytes = 64 * 1024;  // longer lines are matched on their head
constexpr std::int64_t kMaxContext = 10;

// Names the construct RE2 refused in words a model can act on; RE2's own
// explanation otherwise.
std::string Unsupported(const RE2& re) {
  const std::string& arg = re.error_arg();
  if (re.error_code() == RE2::ErrorBadPerlOp || re.error_code() == RE2::ErrorMissingParen) {
    if (arg.starts_with("(?=") || arg.starts_with("(?!"))
      return "lookahead (?= / (?! is not supported";
    if (arg.starts_with("(?<")) return "lookbehind (?<= / (?<! is not supported";
  }
  if (re.error_code() == RE2::ErrorBadEscape && arg.size() >= 2 && arg[0] == '\\' &&
      arg[1] >= '1' && arg[1] <= '9') {
    return Format("backreference {} is not supported", arg);
  }
  if (re.error_code() == RE2::ErrorPatternTooLarge) return "the pattern is too large";
  return re.error();
}

class Matcher {
 public:
  // `query` "/re/" or "/re/i" is a regular expression (RE2 syntax: linear time,
  // no backreferences or lookaround), anything else a substring.
  static std::expected<Matcher, ToolError> Make(const std::string& query) {
    Matcher m;
    const std::size_t close = query.rfind('/');
    if (query.size() >= 2 && query.front() == '/' && close > 0) {
      const std::string flags = query.substr(close + 1);
      if (flags.empty() || flags == "i") {
        RE2::Options options;
        options.set_log_errors(false);
        options.set_case_sensitive(flags.empty());
        auto re = std::make_shared<const RE2>(query.substr(1, close - 1), options);
        if (!re->ok()) {
          return std::unexpected(ToolError{
              ToolErrorCode::kSchemaValidation,
              Format("argument query: invalid regular expression {}: {}", query, Unsupported(*re)),
              OJson{{"field", "query"}}});
        }
        m.regex_ = std::move(re);
        return m;
      }
    }
    m.needle_ = query;
    return m;
  }
  // Byte offset of the first match in `line`, or npos.
  std::size_t Find(std::string_view line) const {
    if (!regex_) return line.find(needle_);
    const std::string_view head = line.substr(0, kRegexLineBytes);
    re2::StringPiece match;
    if (!regex_->Match(re2::StringPiece(head.data(), head.size()), 0, head.size(), RE2::UNANCHORED,
                       &match, 1))
      return std::string_view::npos;
    return static_cast<std::size_t>(match.data() - head.data());
  }

 private:
  std::shared_ptr<const RE2> regex_;
  std::string needle_;
};

struct Pending {
  OJson match;
  std::int64_t after_left = 0;
};

}  // namespace

OJson ToolHost::Search(const OJson& args) {
  auto query = RequireStringArg(args, "query");
  if (!query) return ErrorResult(query.error());
  if (query->empty()) {
    return ErrorResult({ToolErrorCode::kSchemaValidation, "argument query: must not be empty",
                        OJson{{"field", "query"}}});
  }
  MountPath root{Mount::kProject, {}};
  if (args.contains("path") && !args["path"].is_null()) {
    auto p = PathArg(args);
    if (!p) return ErrorResult(p.error());
    root = *p;
  }
  auto max_matches =
      OptionalIntArg(args, "maxMatches", 1, static_cast<std::int64_t>(limits_.max_matches));
  if (!max_matches) return ErrorResult(max_matches.error());
  auto before_arg = OptionalIntArg(args, "before", 0, kMaxContext);
  if (!before_arg) return ErrorResult(before_arg.error());
  auto after_arg = OptionalIntArg(args, "after", 0, kMaxContext);
  if (!after_arg) return ErrorResult(after_arg.error());
  auto matcher = Matcher::Make(*query);
  if (!matcher) return ErrorResult(matcher.error());

  const std::size_t limit = static_cast<std::size_t>(max_matches->value_or(limits_.max_matches));
  const std::int64_t before_n = before_arg->value_or(limits_.context_lines);
  const std::int64_t after_n = after_arg->value_or(limits_.context_lines);
  auto cut = [&](std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return ToValidUtf8(line.substr(0, Utf8Prefix(line, limits_.max_line_bytes)));
  };

  OJson matches = OJson::array();
  std::size_t found = 0;
  std::size_t files = 0;
  bool truncated = false;

  // Scans one open file line by line.
  auto scan = [&](File& file, const std::string& shown) -> std::expected<void, ToolError> {
    auto id = file.Identity();
    if (!id || id->size > limits_.max_file_bytes) return {};
    std::vector<char> buf(64 * 1024);
    std::string carry;
    std::deque<std::string> recent;  // the last `before_n` lines
    std::vector<Pending> pending;    // matches still collecting `after` lines
    std::int64_t line_no = 0;
    std::uint64_t offset = 0;
    bool probed = false;
    auto on_line = [&](std::string_view line) {
      ++line_no;
      for (auto& p : pending) {
        if (p.after_left > 0) {
          p.match["after"].push_back(cut(line));
          --p.after_left;
        }
      }
      while (!pending.empty() && pending.front().after_left == 0) {
        matches.push_back(std::move(pending.front().match));
        pending.erase(pending.begin());
      }
      const std::size_t at = matcher->Find(line);
      if (at != std::string_view::npos) {
        ++found;
        if (found > limit) {
          truncated = true;
        } else {
          OJson m = {{"path", shown},
                     {"line", line_no},
                     {"column", CountCodePoints(line.substr(0, at)) + 1},
                     {"text", cut(line)}};
          OJson before = OJson::array();
          for (const auto& r : recent) before.push_back(r);
          m["before"] = std::move(before);
          m["after"] = OJson::array();
          pending.push_back({std::move(m), after_n});
          if (after_n == 0) {
            matches.push_back(std::move(pending.back().match));
            pending.pop_back();
          }
        }
      }
      if (before_n > 0) {
        recent.push_back(cut(line));
        if (static_cast<std::int64_t>(recent.size()) > before_n) recent.pop_front();
      }
    };
    for (;;) {
      auto n = file.ReadAt(offset, buf);
      if (!n)
        return std::unexpected(
            ToolError{ToolErrorCode::kInternal, Format("{}: {}", shown, n.error().message)});
      if (*n == 0) break;
      std::string_view chunk(buf.data(), *n);
      if (!probed) {
        probed = true;
        if (chunk.substr(0, kBinaryProbe).find('\0') != std::string_view::npos) return {};
        ++files;
      }
      offset += *n;
      std::size_t i = 0;
      while (i < chunk.size()) {
        const std::size_t nl = chunk.find('\n', i);
        if (nl == std::string_view::npos) {
          carry.append(chunk.substr(i));
          break;
        }
        if (carry.empty()) {
          on_line(chunk.substr(i, nl - i));
        } else {
          carry.append(chunk.substr(i, nl - i));
          on_line(carry);
          carry.clear();
        }
        i = nl + 1;
      }
    }
    if (!probed) ++files;  // an empty file was read too
    if (!carry.empty()) on_line(carry);
    for (auto& p : pending) matches.push_back(std::move(p.match));
    // Matches of one file are appended in line order.
    return {};
  };

  auto start = sandbox_.Resolve(root);
  if (!start) return ErrorResult(FromSandbox(start.error()));
  if (!start->kind)
    return ErrorResult({ToolErrorCode::kNotFound, Format("Not found: {}", root.Display())});
  if (*start->kind == EntryKind::kFile) {
    auto file = start->parent->OpenFile(start->name);
    if (!file) return ErrorResult(FromFs(file.error(), root, ToolErrorCode::kNotFound));
    if (auto r = scan(**file, root.Display()); !r) return ErrorResult(r.error());
  } else if (*start->kind == EntryKind::kDirectory) {
    auto top = sandbox_.OpenDir(root);
    if (!top) return ErrorResult({ToolErrorCode::kNotFound, top.error().message});
    // Depth first, names sorted, so results are in a stable order.
    struct Frame {
      std::unique_ptr<Dir> dir;
      std::string shown;
    };
    std::vector<Frame> stack;
    stack.push_back({std::move(*top), root.Display()});
    while (!stack.empty()) {
      Frame frame = std::move(stack.back());
      stack.pop_back();
      auto entries = frame.dir->List();
      if (!entries) continue;
      std::sort(entries->begin(), entries->end(),
                [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
      std::vector<Frame> subdirs;
      for (const auto& e : *entries) {
        const std::string shown = frame.shown + "/" + ToValidUtf8(e.name);
        if (e.kind == EntryKind::kFile) {
          auto file = frame.dir->OpenFile(e.name);
          // Changed kind since List, or hard-linked: skipped like a symlink.
          if (!file) continue;
          if (auto r = scan(**file, shown); !r) return ErrorResult(r.error());
        } else if (e.kind == EntryKind::kDirectory) {
          if (e.name.front() == '.' || e.name == "node_modules") continue;
          auto sub = frame.dir->OpenDir(e.name);
          if (sub) subdirs.push_back({std::move(*sub), shown});
        }
      }
      // Files of a folder before its subfolders; subfolders in name order.
      for (auto it = subdirs.rbegin(); it != subdirs.rend(); ++it) stack.push_back(std::move(*it));
    }
  } else {
    return ErrorResult(detail::NotRegularFile(root));
  }
  OJson out = {{"ok", true}, {"matches", std::move(matches)}};
  out["truncated"] = truncated;
  out["stats"] = {{"filesScanned", files}, {"matchesFound", found}};
  return out;
}

}  // namespace llmconform::toolcalls

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

// One search's state across the files it reads: the matches found so far
// (each with its context lines), the count of matches and files. Borrows the
// matcher and limits, which outlive it.
class SearchScan {
 public:
  SearchScan(const Matcher& matcher, const Limits& limits, std::size_t limit, std::int64_t before_n,
             std::int64_t after_n)
      : matcher_(matcher), limits_(limits), limit_(limit), before_n_(before_n), after_n_(after_n) {}

  // Reads one open file line by line; a binary file (a NUL in its head) or one
  // over the size limit is skipped. Its matches are appended in line order.
  std::expected<void, ToolError> Scan(File& file, const std::string& shown) {
    auto id = file.Identity();
    if (!id || id->size > limits_.max_file_bytes) return {};
    std::vector<char> buf(64 * 1024);
    std::string carry;
    FileState state{shown};
    std::uint64_t offset = 0;
    bool probed = false;
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
        ++files_;
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
          OnLine(state, chunk.substr(i, nl - i));
        } else {
          carry.append(chunk.substr(i, nl - i));
          OnLine(state, carry);
          carry.clear();
        }
        i = nl + 1;
      }
    }
    if (!probed) ++files_;  // an empty file was read too
    if (!carry.empty()) OnLine(state, carry);
    for (auto& p : state.pending) matches_.push_back(std::move(p.match));
    return {};
  }

  OJson Result() && {
    OJson out = {{"ok", true}, {"matches", std::move(matches_)}};
    out["truncated"] = found_ > limit_;
    out["stats"] = {{"filesScanned", files_}, {"matchesFound", found_}};
    return out;
  }

 private:
  struct FileState {
    const std::string& shown;
    std::deque<std::string> recent;  // the last `before_n_` lines
    std::vector<Pending> pending;    // matches still collecting `after` lines
    std::int64_t line_no = 0;
  };

  std::string Cut(std::string_view line) const {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return ToValidUtf8(line.substr(0, Utf8Prefix(line, limits_.max_line_bytes)));
  }

  void OnLine(FileState& f, std::string_view line) {
    ++f.line_no;
    for (auto& p : f.pending) {
      if (p.after_left > 0) {
        p.match["after"].push_back(Cut(line));
        --p.after_left;
      }
    }
    while (!f.pending.empty() && f.pending.front().after_left == 0) {
      matches_.push_back(std::move(f.pending.front().match));
      f.pending.erase(f.pending.begin());
    }
    const std::size_t at = matcher_.Find(line);
    if (at != std::string_view::npos && ++found_ <= limit_) {
      OJson m = {{"path", f.shown},
                 {"line", f.line_no},
                 {"column", CountCodePoints(line.substr(0, at)) + 1},
                 {"text", Cut(line)}};
      OJson before = OJson::array();
      for (const auto& r : f.recent) before.push_back(r);
      m["before"] = std::move(before);
      m["after"] = OJson::array();
      if (after_n_ == 0) {
        matches_.push_back(std::move(m));
      } else {
        f.pending.push_back({std::move(m), after_n_});
      }
    }
    if (before_n_ > 0) {
      f.recent.push_back(Cut(line));
      if (static_cast<std::int64_t>(f.recent.size()) > before_n_) f.recent.pop_front();
    }
  }

  const Matcher& matcher_;
  const Limits& limits_;
  const std::size_t limit_;
  const std::int64_t before_n_;
  const std::int64_t after_n_;
  OJson matches_ = OJson::array();
  std::size_t found_ = 0;
  std::size_t files_ = 0;
};

// Scans every regular file under `top` (shown as `shown`) depth first, names
// sorted, a folder's files before its subfolders; hidden folders and
// node_modules are not entered. Stops at the first error `scan` returns.
std::expected<void, ToolError> ScanTree(std::unique_ptr<Dir> top, const std::string& shown,
                                        SearchScan& scan) {
  struct Frame {
    std::unique_ptr<Dir> dir;
    std::string shown;
  };
  std::vector<Frame> stack;
  stack.push_back({std::move(top), shown});
  while (!stack.empty()) {
    Frame frame = std::move(stack.back());
    stack.pop_back();
    auto entries = frame.dir->List();
    if (!entries) continue;
    std::sort(entries->begin(), entries->end(),
              [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
    std::vector<Frame> subdirs;
    for (const auto& e : *entries) {
      const std::string path = frame.shown + "/" + ToValidUtf8(e.name);
      if (e.kind == EntryKind::kFile) {
        auto file = frame.dir->OpenFile(e.name);
        // Changed kind since List, or hard-linked: skipped like a symlink.
        if (!file) continue;
        if (auto r = scan.Scan(**file, path); !r) return r;
      } else if (e.kind == EntryKind::kDirectory) {
        if (e.name.front() == '.' || e.name == "node_modules") continue;
        auto sub = frame.dir->OpenDir(e.name);
        if (sub) subdirs.push_back({std::move(*sub), path});
      }
    }
    // Subfolders in name order.
    for (auto it = subdirs.rbegin(); it != subdirs.rend(); ++it) stack.push_back(std::move(*it));
  }
  return {};
}

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
  SearchScan scan(
      *matcher, limits_, static_cast<std::size_t>(max_matches->value_or(limits_.max_matches)),
      before_arg->value_or(limits_.context_lines), after_arg->value_or(limits_.context_lines));

  auto start = sandbox_.Resolve(root);
  if (!start) return ErrorResult(FromSandbox(start.error()));
  if (!start->kind)
    return ErrorResult({ToolErrorCode::kNotFound, Format("Not found: {}", root.Display())});
  if (*start->kind == EntryKind::kFile) {
    auto file = start->parent->OpenFile(start->name);
    if (!file) return ErrorResult(FromFs(file.error(), root, ToolErrorCode::kNotFound));
    if (auto r = scan.Scan(**file, root.Display()); !r) return ErrorResult(r.error());
  } else if (*start->kind == EntryKind::kDirectory) {
    auto top = sandbox_.OpenDir(root);
    if (!top) return ErrorResult({ToolErrorCode::kNotFound, top.error().message});
    if (auto r = ScanTree(std::move(*top), root.Display(), scan); !r) return ErrorResult(r.error());
  } else {
    return ErrorResult(detail::NotRegularFile(root));
  }
  return std::move(scan).Result();
}

}  // namespace llmconform::toolcalls

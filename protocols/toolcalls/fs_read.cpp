// fs.read: ToolHost::Read (contract in tool_host.h).
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/format.h"
#include "base/utf8.h"
#include "protocols/toolcalls/tool_args.h"
#include "protocols/toolcalls/tool_host.h"
#include "protocols/toolcalls/tool_support.h"

namespace llmconform::toolcalls {
namespace {

// Collects the bytes of lines [first, last] (1-based), stopping once more
// than `limit` bytes are held.
class LineWindow {
 public:
  LineWindow(std::int64_t first, std::int64_t last, std::uint64_t limit)
      : first_(first), last_(last), limit_(limit) {}
  bool done() const { return done_; }
  bool overflow() const { return overflow_; }
  const std::string& text() const { return out_; }
  void Feed(std::string_view chunk) {
    std::size_t i = 0;
    while (i < chunk.size() && !done_) {
      const std::size_t nl = chunk.find('\n', i);
      const std::size_t stop = nl == std::string_view::npos ? chunk.size() : nl + 1;
      if (line_ >= first_) {
        out_.append(chunk.substr(i, stop - i));
        if (out_.size() > limit_) overflow_ = done_ = true;
      }
      if (nl != std::string_view::npos && ++line_ > last_) done_ = true;
      i = stop;
    }
  }

 private:
  std::int64_t first_, last_;
  std::uint64_t limit_;
  std::int64_t line_ = 1;
  std::string out_;
  bool done_ = false;
  bool overflow_ = false;
};

}  // namespace

OJson ToolHost::Read(const OJson& args, Hashes& hashes) {
  auto path = PathArg(args);
  if (!path) return ErrorResult(path.error());
  auto first = OptionalIntArg(args, "startLine", 1, INT64_MAX);
  if (!first) return ErrorResult(first.error());
  auto last = OptionalIntArg(args, "endLine", 1, INT64_MAX);
  if (!last) return ErrorResult(last.error());
  const std::int64_t from = first->value_or(1);
  const std::int64_t to = last->value_or(INT64_MAX);
  if (to < from) {
    return ErrorResult(
        {ToolErrorCode::kSchemaValidation,
         Format("argument endLine: expected at least startLine ({}), got {}", from, to),
         OJson{{"field", "endLine"}}});
  }
  auto file = sandbox_.OpenFile(*path);
  if (!file) return ErrorResult(FromSandbox(file.error()));
  auto id = (*file)->Identity();
  if (!id) return ErrorResult(detail::InternalError(*path, id.error().message));
  if (id->size > limits_.max_file_bytes) {
    return ErrorResult({ToolErrorCode::kReadLimit,
                        Format("{} is {} bytes, over the limit of {} bytes that fs.read opens",
                               path->Display(), id->size, limits_.max_file_bytes),
                        OJson{{"bytes", id->size}, {"maxFileBytes", limits_.max_file_bytes}}});
  }
  auto hash = HashOf(**file, *path);
  if (!hash) return ErrorResult(hash.error());
  hashes.before = hashes.after = *hash;

  LineWindow window(from, to, limits_.max_read_bytes);
  std::vector<char> buf(
      std::min<std::uint64_t>(detail::kChunkBytes, limits_.max_read_bytes + 1 + 4096));
  std::uint64_t offset = 0;
  while (!window.done()) {
    auto n = (*file)->ReadAt(offset, buf);
    if (!n) return ErrorResult(detail::InternalError(*path, n.error().message));
    if (*n == 0) break;
    window.Feed(std::string_view(buf.data(), *n));
    offset += *n;
  }
  OJson out = {{"ok", true}, {"path", path->Display()}, {"bytes", id->size}, {"sha256", *hash}};
  if (!window.overflow()) {
    out["truncated"] = false;
    out["content"] = ToValidUtf8(window.text());
    return out;
  }
  const std::string& text = window.text();
  const std::size_t cut = Utf8Prefix(text, limits_.max_read_bytes);
  out["truncated"] = true;
  out["contentPreview"] = ToValidUtf8(std::string_view(text).substr(0, cut));
  if (first->has_value() || last->has_value()) {
    out["hint"] = Format(
        "Lines {} to {} hold more than maxReadBytes={} bytes; contentPreview holds the first {} "
        "bytes. Read a smaller window with startLine and endLine.",
        from, last->has_value() ? Format("{}", to) : std::string("the end"), limits_.max_read_bytes,
        cut);
  } else {
    out["hint"] = Format(
        "The file is {} bytes, over maxReadBytes={}; contentPreview holds the first {} bytes. Use "
        "fs.search to find what you need, then fs.read with startLine and endLine.",
        id->size, limits_.max_read_bytes, cut);
  }
  return out;
}

}  // namespace llmconform::toolcalls

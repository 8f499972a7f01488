#include "protocols/toolcalls/mount_path.h"

#include "base/format.h"

namespace llmconform::toolcalls {
namespace {

// Shown in messages: a path cut to a readable length, control bytes escaped.
std::string Shown(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 200)) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += Format("\\x{}{}", "0123456789abcdef"[(c >> 4) & 0xf], "0123456789abcdef"[c & 0xf]);
    } else {
      out.push_back(c);
    }
  }
  if (text.size() > 200) out += "…";
  return out;
}

}  // namespace

std::string_view MountName(Mount m) {
  switch (m) {
    case Mount::kProject:
      return "@project";
    case Mount::kPkg:
      return "@pkg";
    case Mount::kState:
      return "@state";
  }
  return "@?";
}

std::string MountPath::Display() const {
  std::string out(MountName(mount));
  for (const auto& s : segments) out += "/" + s;
  return out;
}

std::expected<MountPath, std::string> ParseMountPath(std::string_view text) {
  auto refuse = [&](std::string_view why) {
    return std::unexpected(Format("{}: {}", why, Shown(text)));
  };
  if (text.empty()) return refuse("path is empty");
  if (text.size() > kMaxPathBytes)
    return refuse(Format("path is longer than {} bytes", kMaxPathBytes));
  if (text.find('\0') != std::string_view::npos) return refuse("path must not contain a NUL byte");
  if (text.find('\\') != std::string_view::npos) return refuse("path must not contain a backslash");
  if (text.front() == '/' || text.front() == '~' ||
      (text.size() >= 2 && text[1] == ':' &&
       ((text[0] | 0x20) >= 'a' && (text[0] | 0x20) <= 'z'))) {
    return refuse("path must be a mount path (@project/, @pkg/ or @state/), not an absolute path");
  }
  MountPath out;
  const std::size_t slash = text.find('/');
  const std::string_view head = text.substr(0, slash);
  if (head == "@project") {
    out.mount = Mount::kProject;
  } else if (head == "@pkg") {
    out.mount = Mount::kPkg;
  } else if (head == "@state") {
    out.mount = Mount::kState;
  } else {
    return refuse("path must start with @project/, @pkg/ or @state/");
  }
  if (slash == std::string_view::npos) return out;
  std::string_view rest = text.substr(slash + 1);
  while (!rest.empty()) {
    const std::size_t next = rest.find('/');
    const std::string_view seg = rest.substr(0, next);
    rest = next == std::string_view::npos ? std::string_view{} : rest.substr(next + 1);
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") return refuse("path must not contain a '..' segment");
    if (seg.size() > kMaxSegmentBytes) {
      return refuse(Format("path segment is longer than {} bytes", kMaxSegmentBytes));
    }
    out.segments.emplace_back(seg);
  }
  return out;
}

}  // namespace llmconform::toolcalls

// fs.list: ToolHost::List (contract in tool_host.h).
#include <algorithm>
#include <string>
#include <vector>

#include "base/format.h"
#include "base/utf8.h"
#include "protocols/toolcalls/tool_args.h"
#include "protocols/toolcalls/tool_host.h"
#include "protocols/toolcalls/tool_support.h"

namespace llmconform::toolcalls {

OJson ToolHost::List(const OJson& args) {
  auto path = PathArg(args);
  if (!path) return ErrorResult(path.error());
  auto dir = sandbox_.OpenDir(*path);
  if (!dir) return ErrorResult(FromSandbox(dir.error()));
  auto entries = (*dir)->List();
  if (!entries) return ErrorResult(detail::InternalError(*path, entries.error().message));
  std::vector<std::string> names;
  for (const auto& e : *entries) {
    if (e.name.empty() || e.name.front() == '.') continue;
    names.push_back(ToValidUtf8(e.name) + (e.kind == EntryKind::kDirectory ? "/" : ""));
  }
  std::sort(names.begin(), names.end());
  OJson out = {{"ok", true}, {"path", path->Display()}};
  if (names.size() <= limits_.max_list_entries) {
    out["entries"] = names;
    out["truncated"] = false;
    return out;
  }
  const std::size_t total = names.size();
  names.resize(limits_.max_list_entries);
  out["entriesPreview"] = names;
  out["truncated"] = true;
  out["hint"] = Format(
      "The folder holds {} entries; entriesPreview shows the first {} by name. List a subfolder or "
      "use fs.search.",
      total, limits_.max_list_entries);
  return out;
}

}  // namespace llmconform::toolcalls

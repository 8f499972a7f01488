#include "mockllm/trace_files.h"

#include <algorithm>

#include "base/format.h"

namespace llmconform::mockllm {

using llmconform::Format;
namespace fs = std::filesystem;

std::expected<std::vector<fs::path>, Error> TraceFiles(const std::vector<std::string>& paths) {
  std::vector<fs::path> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> found;
      for (const auto& entry : fs::recursive_directory_iterator(p, ec)) {
        if (entry.is_regular_file() && entry.path().filename().string().ends_with(".trace.jsonl")) {
          found.push_back(entry.path());
        }
      }
      std::sort(found.begin(), found.end());
      if (found.empty())
        return std::unexpected(Error{Format("{}: no *.trace.jsonl files in this directory", p)});
      out.insert(out.end(), found.begin(), found.end());
    } else if (fs::exists(p, ec)) {
      out.emplace_back(p);
    } else {
      return std::unexpected(Error::NotFound(Format("{}: no such file or directory", p)));
    }
  }
  return out;
}

}  // namespace llmconform::mockllm

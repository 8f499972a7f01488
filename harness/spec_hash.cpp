#include "harness/spec_hash.h"

#include <openssl/evp.h>

#include <algorithm>
#include <memory>
#include <set>
#include <vector>

#include "base/format.h"

namespace llmconform::harness {
namespace {

namespace fs = std::filesystem;

class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr);
  }
  void Update(std::string_view bytes) { EVP_DigestUpdate(ctx_.get(), bytes.data(), bytes.size()); }
  // A length-prefixed field, so that ("ab","c") and ("a","bc") differ.
  void Field(std::string_view bytes) {
    Update(Format("{}:", bytes.size()));
    Update(bytes);
  }
  std::string HexDigest() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    EVP_DigestFinal_ex(ctx_.get(), digest, &size);
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < size; ++i) {
      out += kHex[digest[i] >> 4];
      out += kHex[digest[i] & 15];
    }
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx_;
};

}  // namespace

std::expected<std::string, Error> SpecSetHash(const fs::path& specs_dir, const SpecSet& specs,
                                              const fs::path& source_root) {
  std::vector<std::string> spec_files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(specs_dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file())
      spec_files.push_back(it->path().lexically_relative(specs_dir).generic_string());
  }
  if (ec)
    return std::unexpected(Error{Format("{}: cannot list: {}", specs_dir.string(), ec.message())});
  std::sort(spec_files.begin(), spec_files.end());
  std::set<std::string> traces;
  for (const auto& s : specs.scenarios) {
    if (!s.trace.empty()) traces.insert(fs::path(s.trace).lexically_normal().generic_string());
  }
  Sha256 sha;
  sha.Field("llmconform-specs/1");
  for (const auto& [root, names, tag] :
       {std::tuple{specs_dir, std::vector<std::string>(spec_files), "specs"},
        std::tuple{source_root, std::vector<std::string>(traces.begin(), traces.end()),
                   "fixtures"}}) {
    sha.Field(tag);
    const bool fixtures = std::string_view(tag) == "fixtures";
    for (const auto& name : names) {
      auto text = ReadFile(root / name);
      sha.Field(name);
      if (text) {
        sha.Field(*text);
      } else if (fixtures) {
        sha.Update("missing");  // the run reports it; unlike any Field
      } else {
        return std::unexpected(text.error());
      }
    }
  }
  return "sha256:" + sha.HexDigest();
}

}  // namespace llmconform::harness

// SHA-256 through OpenSSL's EVP interface, as lower-case hex.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace llmconform::toolcalls {

// Incremental hashing; not copyable.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void Update(std::string_view data);
  // The digest of everything given so far, 64 hex digits; call once.
  std::string HexDigest();

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

std::string Sha256Hex(std::string_view data);

}  // namespace llmconform::toolcalls

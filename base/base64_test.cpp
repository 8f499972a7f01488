#include "base/base64.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace llmconform {
namespace {

TEST(Base64, EncodesAndDecodesRfc4648Vectors) {
  for (auto [plain, coded] : {std::pair{"", ""},
                              {"f", "Zg=="},
                              {"fo", "Zm8="},
                              {"foo", "Zm9v"},
                              {"foob", "Zm9vYg=="},
                              {"fooba", "Zm9vYmE="},
                              {"foobar", "Zm9vYmFy"}}) {
    EXPECT_EQ(Base64Encode(plain), coded);
    EXPECT_EQ(Base64Decode(coded), plain);
  }
  EXPECT_FALSE(Base64Decode("Zm8"));
  EXPECT_FALSE(Base64Decode("Z=8="));
  EXPECT_FALSE(Base64Decode("Zm9v!A=="));
}

RC_GTEST_PROP(Base64Properties, RoundTrips, (const std::string& bytes)) {
  RC_ASSERT(Base64Decode(Base64Encode(bytes)) == bytes);
}

}  // namespace
}  // namespace llmconform

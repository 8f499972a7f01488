#include "mockllm/content_coding.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace llmconform::mockllm {
namespace {

TEST(ContentCoding, GzipAndBrotliRoundTrip) {
  const std::string text = "data: {\"choices\":[]}\n\ndata: [DONE]\n\n";
  EXPECT_EQ(DecodeContent("gzip", GzipForTest(text)).value(), text);
  EXPECT_EQ(DecodeContent("GZIP", GzipForTest(text)).value(), text);
  EXPECT_EQ(DecodeContent("br", BrotliForTest(text)).value(), text);
  EXPECT_EQ(DecodeContent("identity", text).value(), text);
}

TEST(ContentCoding, BadDataSaysWhy) {
  EXPECT_EQ(DecodeContent("gzip", "plain text").error().message,
            "not gzip data (no gzip magic number)");
  std::string gz = GzipForTest(std::string(1000, 'a'));
  gz.resize(gz.size() / 2);
  EXPECT_EQ(DecodeContent("gzip", gz).error().message, "truncated data");
  EXPECT_TRUE(DecodeContent("br", "\xff\xff\xff").error().message.starts_with("not brotli data"));
  EXPECT_EQ(DecodeContent("zstd", "x").error().message, "unknown content coding \"zstd\"");
}

TEST(ContentCoding, OutputIsBounded) {
  const std::string bomb = GzipForTest(std::string(1 << 20, '\0'));
  EXPECT_EQ(DecodeContent("gzip", bomb, 4096).error().message, "decodes to more than 4096 bytes");
  EXPECT_EQ(DecodeContent("gzip", bomb, 4096).error().kind, DecodeError::Kind::kTooLarge);
  EXPECT_EQ(DecodeContent("gzip", "plain").error().kind, DecodeError::Kind::kBadData);
  EXPECT_EQ(DecodeContent("br", BrotliForTest(std::string(1 << 20, '\0')), 4096).error().message,
            "decodes to more than 4096 bytes");
}

RC_GTEST_PROP(ContentCoding, RandomBytesNeverCrash, (const std::string& bytes)) {
  for (const char* c : {"gzip", "deflate", "br"}) {
    auto out = DecodeContent(c, bytes, 1 << 16);
    RC_ASSERT(out.has_value() || !out.error().message.empty());
  }
  RC_ASSERT(DecodeContent("gzip", GzipForTest(bytes)).value() == bytes);
  RC_ASSERT(DecodeContent("br", BrotliForTest(bytes)).value() == bytes);
}

}  // namespace
}  // namespace llmconform::mockllm

#include "base/url.h"

#include <gtest/gtest.h>

namespace llmconform {
namespace {

TEST(SplitHttpUrl, SeparatesOriginAndPath) {
  auto p = SplitHttpUrl("http://127.0.0.1:8080/t/a%2Fb/v1/");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->origin, "http://127.0.0.1:8080");
  EXPECT_EQ(p->path, "/t/a%2Fb/v1");
  EXPECT_EQ(SplitHttpUrl("https://api.example.com")->path, "");
  EXPECT_EQ(SplitHttpUrl("https://api.example.com//")->path, "");
  EXPECT_EQ(SplitHttpUrl("ftp://x/y").error(), UrlError::kNotHttp);
  EXPECT_EQ(SplitHttpUrl("localhost:8080").error(), UrlError::kNotHttp);
  EXPECT_EQ(SplitHttpUrl("http://").error(), UrlError::kNoHost);
  EXPECT_EQ(SplitHttpUrl("http:///v1").error(), UrlError::kNoHost);
}

}  // namespace
}  // namespace llmconform

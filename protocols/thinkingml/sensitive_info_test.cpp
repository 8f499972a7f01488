#include "protocols/thinkingml/sensitive_info.h"

#include <gtest/gtest.h>

namespace llmconform::thinkingml {
namespace {

TEST(SensitiveInfo, FindsEmailAddresses) {
  EXPECT_EQ(FindEmailAddress("联系 ann.lee+gym@example.co.uk 咨询"), "ann.lee+gym@example.co.uk");
  EXPECT_EQ(FindEmailAddress("mail bob@host.io."), "bob@host.io");
  EXPECT_FALSE(FindEmailAddress("@handle 训练"));
  EXPECT_FALSE(FindEmailAddress("a@b"));
  EXPECT_FALSE(FindEmailAddress("x@y.1"));
}

TEST(SensitiveInfo, FindsPhoneNumbers) {
  EXPECT_EQ(FindPhoneNumber("电话13800138000"), "13800138000");
  EXPECT_EQ(FindPhoneNumber("call 138 0013 8000 now"), "138 0013 8000");
  EXPECT_EQ(FindPhoneNumber("+86 10 8888 6666"), "+86 10 8888 6666");
  EXPECT_EQ(FindPhoneNumber("(555) 123-4567"), "(555) 123-4567");
  EXPECT_EQ(FindPhoneNumber("010-88886666"), "010-88886666");
}

TEST(SensitiveInfo, LeavesOrdinaryNumbersAlone) {
  EXPECT_FALSE(FindPhoneNumber("2024 2025 训练计划"));
  EXPECT_FALSE(FindPhoneNumber("2024-01-15 深蹲"));
  EXPECT_FALSE(FindPhoneNumber("卧推 100kg 5x5"));
  EXPECT_FALSE(FindPhoneNumber("3.14159265358979"));
  EXPECT_FALSE(FindPhoneNumber("v1234567890abc"));
  EXPECT_FALSE(FindIpAddress("Python 3.11 版本"));
  EXPECT_FALSE(FindIpAddress("std::vector 用法"));
  EXPECT_FALSE(FindIpAddress("10:30 训练"));
  EXPECT_FALSE(DescribeSensitiveInfo("三分化训练计划怎么安排"));
}

TEST(SensitiveInfo, FindsIpAddresses) {
  EXPECT_EQ(FindIpAddress("服务器 192.168.1.10 配置"), "192.168.1.10");
  EXPECT_FALSE(FindIpAddress("256.1.1.1"));
  EXPECT_FALSE(FindIpAddress("1.2.3.4.5"));
  EXPECT_EQ(FindIpAddress("addr 2001:db8::1 ok"), "2001:db8::1");
  EXPECT_EQ(FindIpAddress("fe80:0:0:0:202:b3ff:fe1e:8329"), "fe80:0:0:0:202:b3ff:fe1e:8329");
  EXPECT_EQ(FindIpAddress("::1"), "::1");
}

TEST(SensitiveInfo, DescribesTheFirstKindFound) {
  EXPECT_EQ(DescribeSensitiveInfo("ann@example.com"), "an e-mail address (ann@example.com)");
  EXPECT_EQ(DescribeSensitiveInfo("ping 10.0.0.1"), "an IP address (10.0.0.1)");
  EXPECT_EQ(DescribeSensitiveInfo("打 13912345678"), "a phone number (13912345678)");
}

}  // namespace
}  // namespace llmconform::thinkingml

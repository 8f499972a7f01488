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

TEST(SensitiveInfo, FindsPhoneNumbersByTheirShapes) {
  EXPECT_EQ(FindPhoneNumber("打 138-0013-8000"), "138-0013-8000");
  EXPECT_EQ(FindPhoneNumber("+8613800138000"), "+8613800138000");
  EXPECT_EQ(FindPhoneNumber("86 138 0013 8000"), "86 138 0013 8000");
  EXPECT_EQ(FindPhoneNumber("(0755) 1234 5678"), "(0755) 1234 5678");
  EXPECT_EQ(FindPhoneNumber("555.123.4567"), "555.123.4567");
  EXPECT_EQ(FindPhoneNumber("1-800-555-1234"), "1-800-555-1234");
  EXPECT_EQ(FindPhoneNumber("0044 20 7946 0958"), "0044 20 7946 0958");
  EXPECT_EQ(FindPhoneNumber("+1 (415) 555-0100"), "+1 (415) 555-0100");
  // A window of a longer run of groups.
  EXPECT_EQ(FindPhoneNumber("卧推 3 5 138 0013 8000"), "138 0013 8000");
  EXPECT_EQ(FindPhoneNumber("每组 12 次 13912345678"), "13912345678");
}

// Issue 18: runs of 10–15 digits that are not phone numbers.
TEST(SensitiveInfo, OrdinaryNumberRunsAreNotPhoneNumbers) {
  for (std::string_view q :
       {"每天 10000-12000 步 减肥", "时间戳 1700000000000 转换", "ISBN 9787115428028",
        "9787115428028", "978-7-115-42802-8", "学号 2021123456 成绩", "2023-2024-2025",
        "2023-2024-2025 赛季", "10000 12000 步", "订单 12345678901234", "1234567890", "12345678901",
        "3 5 8 10 12 组", "(010)", "v2.3.4567890123"}) {
    EXPECT_FALSE(FindPhoneNumber(q)) << q;
    EXPECT_FALSE(DescribeSensitiveInfo(q)) << q;
  }
}

TEST(SensitiveInfo, FindsLuhnValidBankCardNumbers) {
  EXPECT_EQ(FindBankCardNumber("卡号 4111111111111111 查询"), "4111111111111111");
  EXPECT_EQ(FindBankCardNumber("6222 0212 3456 7890 128"), "6222 0212 3456 7890 128");
  EXPECT_EQ(FindBankCardNumber("5500-0000-0000-0004"), "5500-0000-0000-0004");
  EXPECT_EQ(FindBankCardNumber("6212261202011584340"), "6212261202011584340");  // 19 digits
  EXPECT_EQ(DescribeSensitiveInfo("转账 4111 1111 1111 1111"),
            "a bank card number (4111 1111 1111 1111)");
  // Fails Luhn, wrong length, mixed separators, bad grouping, glued.
  EXPECT_FALSE(FindBankCardNumber("4111111111111112"));
  EXPECT_FALSE(FindBankCardNumber("411111111111111"));       // 15
  EXPECT_FALSE(FindBankCardNumber("41111111111111111111"));  // 20
  EXPECT_FALSE(FindBankCardNumber("4111 1111-1111 1111"));
  EXPECT_FALSE(FindBankCardNumber("41111 11111 11111 1"));
  EXPECT_FALSE(FindBankCardNumber("id4111111111111111"));
  EXPECT_FALSE(FindBankCardNumber("9787115428028"));
}

TEST(SensitiveInfo, FindsChineseStreetAddresses) {
  EXPECT_EQ(FindStreetAddress("北京市朝阳区建国路 88 号 健身房"), "北京市朝阳区建国路 88 号");
  EXPECT_EQ(FindStreetAddress("上海市徐汇区漕溪北路88号"), "上海市徐汇区漕溪北路88号");
  EXPECT_EQ(FindStreetAddress("东城区南锣鼓巷 12-3 号"), "东城区南锣鼓巷 12-3 号");
  EXPECT_EQ(FindStreetAddress("西四北三条胡同\u30005号"), "西四北三条胡同\u30005号");
  EXPECT_EQ(FindStreetAddress("阳光小区 3 栋 502 室"), "3 栋 502 室");
  EXPECT_EQ(FindStreetAddress("5单元302室"), "5单元302室");
  EXPECT_EQ(DescribeSensitiveInfo("北京市朝阳区建国路 88 号 健身房"),
            "a street address (北京市朝阳区建国路 88 号)");
  // Places without a house, and numbers that are not houses.
  for (std::string_view q :
       {"北京市朝阳区建国路 健身房", "朝阳区 健身房", "地铁 3 号线 健身房", "第 3 号 动作",
        "路 88 号", "Road 88 号", "502 室 温度", "3 号楼 健身房", "建国路 v88 号"}) {
    EXPECT_FALSE(FindStreetAddress(q)) << q;
  }
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

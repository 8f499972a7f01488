// The sanitizer build's reports can be read: a memory error names the
// function, the file and the line where it happened. That needs the line
// tables the `asan` preset compiles with (`-gline-tables-only`) and
// llvm-symbolizer-19, which scripts/install-deps installs; without the
// symbolizer a report is a list of addresses (docs/building.md, "Reading a
// sanitizer report"). Skipped in a build without AddressSanitizer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LLMCONFORM_TEST_HAS_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define LLMCONFORM_TEST_HAS_ASAN 1
#endif

namespace llmconform {
namespace {

// Reads the int just past a block of `size`: a heap-buffer-overflow.
[[gnu::noinline]] int ReadPastTheEnd(const int* block, std::size_t size) { return block[size]; }

TEST(SanitizerReportDeathTest, NamesTheFunctionTheFileAndTheLine) {
#ifndef LLMCONFORM_TEST_HAS_ASAN
  GTEST_SKIP() << "not an AddressSanitizer build";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        int* block = new int[4]{};
        volatile int read = ReadPastTheEnd(block, 4);
        (void)read;
        delete[] block;
      },
      testing::AllOf(testing::HasSubstr("heap-buffer-overflow"),
                     testing::ContainsRegex("#0 0x[0-9a-f]+ in .*ReadPastTheEnd.* [^ "
                                            "]*base/sanitizer_report_test\\.cpp:[0-9]+")));
#endif
}

}  // namespace
}  // namespace llmconform

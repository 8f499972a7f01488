#include "base/error.h"

#include <gtest/gtest.h>

#include "base/exit_code.h"

namespace llmconform {
namespace {

TEST(Error, KeepsItsKindWhenSeenFromFurtherOut) {
  const Error e = Error::NotFound("no trace t1");
  EXPECT_EQ(e.kind, ErrorKind::kNotFound);
  const Error outer = e.Within("scenario s2");
  EXPECT_EQ(outer.message, "scenario s2: no trace t1");
  EXPECT_EQ(outer.kind, ErrorKind::kNotFound);
  EXPECT_FALSE(outer.pointer);
  EXPECT_FALSE(outer.position);
  EXPECT_EQ(Error{"x"}.kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(ErrorKindName(ErrorKind::kIo), "I/O error");
}

TEST(Error, PrintsEveryPartOfItsLocationInOneNotation) {
  const Error e = Error::At({"t.jsonl", 3, 14}, "/response/status", "expected integer, got string");
  EXPECT_EQ(e.message, "t.jsonl:3:14: /response/status: expected integer, got string");
  EXPECT_EQ(ErrorText(e), e.message);
  EXPECT_EQ(e.pointer, "/response/status");
  EXPECT_EQ(e.position, (FilePosition{"t.jsonl", 3, 14}));
  EXPECT_EQ(e.what, "expected integer, got string");
  // Each part only when present; the root pointer is "/".
  EXPECT_EQ(Error::At({"a.json", 2, 0}, std::nullopt, "w").message, "a.json:2: w");
  EXPECT_EQ(Error::At({"a.json", 0, 0}, "", "w").message, "a.json: /: w");
  EXPECT_EQ(Error::AtPointer("/a/0", "w").message, "/a/0: w");
  EXPECT_EQ(Error::AtPointer("", "w").message, "/: w");
}

TEST(Error, WithinKeepsTheStructureAndPutsTheContextBeforeThePointer) {
  const Error e = Error::AtPointer("/seq", "expected integer, got string", ErrorKind::kNotFound)
                      .Within("entry 2")
                      .Within("journal");
  EXPECT_EQ(e.message, "journal: entry 2: /seq: expected integer, got string");
  EXPECT_EQ(e.kind, ErrorKind::kNotFound);
  EXPECT_EQ(e.pointer, "/seq");
  EXPECT_EQ(e.what, "expected integer, got string");
  const Error placed = e.Placed({"j.jsonl", 2, 8});
  EXPECT_EQ(placed.message, "j.jsonl:2:8: journal: entry 2: /seq: expected integer, got string");
  EXPECT_EQ(placed.pointer, "/seq");
}

TEST(Error, UnderPrefixesThePointer) {
  const Error e = Error::AtPointer("/status", "expected integer").Under("/exchanges/1");
  EXPECT_EQ(e.pointer, "/exchanges/1/status");
  EXPECT_EQ(e.message, "/exchanges/1/status: expected integer");
  // The root of the inner document is the prefix itself.
  EXPECT_EQ(Error::AtPointer("", "w").Under("/fault").message, "/fault: w");
  // An error from a message alone becomes one about the value at the prefix.
  const Error plain = Error{"unknown fault"}.Under("/fault");
  EXPECT_EQ(plain.message, "/fault: unknown fault");
  EXPECT_EQ(plain.pointer, "/fault");
}

TEST(Error, PlacingAMessageOnlyErrorKeepsItsMessageAsWhat) {
  const Error e = Error::Io("cannot read").Placed({"f.json", 1, 1});
  EXPECT_EQ(e.message, "f.json:1:1: cannot read");
  EXPECT_EQ(e.kind, ErrorKind::kIo);
}

TEST(ExitCode, KindsMapToTheDocumentedCodes) {
  EXPECT_EQ(kExitOk, 0);
  EXPECT_EQ(kExitFail, 1);
  EXPECT_EQ(kExitUsage, 2);
  EXPECT_EQ(kExitInternal, 3);
  EXPECT_EQ(ExitCodeFor(ErrorKind::kInvalidInput), kExitUsage);
  EXPECT_EQ(ExitCodeFor(ErrorKind::kNotFound), kExitUsage);
  EXPECT_EQ(ExitCodeFor(ErrorKind::kIo), kExitUsage);
  EXPECT_EQ(ExitCodeFor(Error::Internal("bug")), kExitInternal);
}

}  // namespace
}  // namespace llmconform

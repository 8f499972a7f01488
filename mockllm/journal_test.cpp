// The journal's bounds, as properties: whatever is appended, the held entries
// stay within the entry limit and the byte budget, every kept text within its
// cap, a body nothing cut comes back as it went in, and the byte count does
// not drift as entries come, change and go.
#include "mockllm/journal.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <limits>
#include <string>

#include "base/json.h"

namespace llmconform::mockllm {
namespace {

// A string around the interesting lengths: short, at the 64 KiB cap, past it.
std::string GenText() {
  const std::size_t n = *rc::gen::element<std::size_t>(0, 1, 100, kMaxKeptBytes - 1, kMaxKeptBytes,
                                                       kMaxKeptBytes + 1, 70000);
  // A two-byte character near the cut, so a cut inside it would show.
  std::string s(n, 'a');
  if (n >= 2) s.replace(n / 2, 2, "\xC3\xA9");
  return s;
}

// A body: null, a text (not JSON), or an object of up to 24 strings, which
// may pass 1 MiB once its strings are capped.
Json GenBody() {
  switch (*rc::gen::inRange(0, 3)) {
    case 0:
      return nullptr;
    case 1:
      return GenText();
    default: {
      Json messages = Json::array();
      const int n = *rc::gen::inRange(0, 24);
      for (int i = 0; i < n; ++i) messages.push_back({{"role", "user"}, {"content", GenText()}});
      return {{"model", "m"}, {"messages", std::move(messages)}};
    }
  }
}

// True when `j` holds a string longer than `max`.
bool HasLongString(const Json& j, std::size_t max) {
  if (j.is_string()) return j.get_ref<const std::string&>().size() > max;
  if (!j.is_structured()) return false;
  for (const Json& e : j)
    if (HasLongString(e, max)) return true;
  return false;
}

// What a cut text may add: "… [N bytes in all]".
constexpr std::size_t kNote = 32;

RC_GTEST_PROP(JournalProperty, KeepsWithinItsBoundsAndCountsWithoutDrift, ()) {
  const std::size_t limit = *rc::gen::inRange<std::size_t>(1, 8);
  const std::size_t max_bytes = *rc::gen::inRange<std::size_t>(64 * 1024, 3 * 1024 * 1024);
  Journal journal(limit, max_bytes);
  const int appends = *rc::gen::inRange(1, 10);
  for (int i = 0; i < appends; ++i) {
    JournalEntry e;
    e.method = "POST";
    e.path = "/v1/chat/completions";
    e.headers = {{"content-type", "application/json"}, {"x-long", GenText()}};
    const Json body = GenBody();
    e.body = body;
    if (*rc::gen::arbitrary<bool>()) e.nearest = {{"differences", {{{"actual", GenText()}}}}};
    const std::uint64_t seq = journal.Append(std::move(e));
    if (*rc::gen::arbitrary<bool>()) {
      journal.SetOutcome(seq, "client_disconnected",
                         JournalFinding{FindingKind::kClientDisconnected, GenText()});
    }

    const Json held = journal.Entries();
    RC_ASSERT(held.size() <= limit);
    RC_ASSERT(!held.empty());
    RC_ASSERT(held.back()["seq"] == seq);  // the newest is always held
    const bool within_budget = journal.kept_bytes() <= max_bytes || held.size() == 1;
    RC_ASSERT(within_budget);
    RC_ASSERT(journal.total() == static_cast<std::uint64_t>(i + 1));
    RC_ASSERT(journal.dropped() + held.size() == journal.total());

    const Json& kept = held.back()["request"]["body"];
    const bool cut = held.back()["request"].value("body_cut", false);
    if (cut) {
      // (RC_ASSERT's operands are all evaluated: no `||` that guards a get.)
      if (kept.is_structured()) {
        RC_ASSERT(!HasLongString(kept, kMaxKeptBytes + kNote));
      } else {
        RC_ASSERT(kept.is_string());
        RC_ASSERT(kept.get<std::string>().size() <= kMaxKeptBytes + kNote);
      }
    } else {
      RC_ASSERT(kept == body);  // nothing cut: the body as it went in
    }
    RC_ASSERT(cut ==
              (HasLongString(body, kMaxKeptBytes) || (kept.is_string() && body.is_structured())));
    for (const Json& entry : held) {
      RC_ASSERT(!HasLongString(entry, kMaxKeptBytes + kNote));
      RC_ASSERT(entry.dump().size() <= kMaxKeptBodyBytes * 2 + 8 * (kMaxKeptBytes + kNote));
    }
  }

  // No drift: once `limit` small entries have pushed everything else out,
  // the count is `limit` times what one small entry counts.
  Journal one(1);
  JournalEntry small;
  small.method = "GET";
  small.path = "/v1/models";
  one.Append(small);
  const std::size_t each = one.kept_bytes();
  for (std::size_t i = 0; i < limit; ++i) journal.Append(small);
  RC_ASSERT(journal.Entries().size() == limit);
  RC_ASSERT(journal.kept_bytes() == limit * each);
  journal.Clear();
  RC_ASSERT(journal.kept_bytes() == 0u);
}

TEST(Journal, WholeBodiesAreKeptWholeAndUnmarked) {
  Journal journal(10, kDefaultJournalBytes, /*whole_bodies=*/true);
  const Json body = {{"messages", {{{"content", std::string(kMaxKeptBytes * 3, 'x')}}}}};
  JournalEntry e;
  e.body = body;
  journal.Append(std::move(e));
  const Json held = journal.Entries();
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0]["request"]["body"], body);
  EXPECT_FALSE(held[0]["request"].contains("body_cut"));
}

TEST(Journal, AReaderIsToldWhatTheLimitsDroppedBeforeWhatItReads) {
  Journal journal(3);
  for (int i = 0; i < 5; ++i) journal.Append(JournalEntry{});  // seqs 1-5; 1 and 2 dropped
  const Json all = journal.Entries();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0]["seq"], 3);
  EXPECT_EQ(all[0]["dropped_before"], 2);
  EXPECT_FALSE(all[1].contains("dropped_before"));
  // A reader that saw up to seq 1 missed seq 2 only; one that saw seq 3 missed nothing.
  EXPECT_EQ(journal.Page(1, 10).front()["dropped_before"], 1);
  EXPECT_FALSE(journal.Page(3, 10).front().contains("dropped_before"));
  EXPECT_TRUE(journal.Page(std::numeric_limits<std::uint64_t>::max(), 10).empty());
  // What a reset cleared was not dropped.
  journal.Clear();
  journal.Append(JournalEntry{});
  EXPECT_FALSE(journal.Entries()[0].contains("dropped_before"));
  EXPECT_FALSE(journal.Page(0, 10).front().contains("dropped_before"));
  for (int i = 0; i < 3; ++i) journal.Append(JournalEntry{});  // seqs 6-9; 6 dropped
  EXPECT_EQ(journal.Entries()[0]["dropped_before"], 1);
}

}  // namespace
}  // namespace llmconform::mockllm

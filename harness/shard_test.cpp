#include "harness/shard.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

namespace llmconform::harness {
namespace {

TEST(ParseShard, AcceptsKOfN) {
  EXPECT_EQ(ParseShard("1/4"), (Shard{1, 4}));
  EXPECT_EQ(ParseShard("4/4"), (Shard{4, 4}));
  EXPECT_EQ(FormatShard({2, 3}), "2/3");
}

TEST(ParseShard, RefusesAnythingElseWithTheValue) {
  for (const char* bad :
       {"0/4", "5/4", "1/0", "-1/2", "1", "1/", "/2", "a/b", "1/2/3", " 1/2", "1/99999", ""}) {
    auto r = ParseShard(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find(std::string("'") + bad + "'"), std::string::npos)
        << r.error().message;
  }
}

std::vector<std::string> Ids(int n) {
  std::vector<std::string> ids;
  for (int i = 0; i < n; ++i) ids.push_back("p" + std::to_string(i % 3) + "/s" + std::to_string(i));
  return ids;
}

RC_GTEST_PROP(AssignShards, DisjointCoveringAndOrderIndependent, ()) {
  const int count = *rc::gen::inRange(0, 60);
  const int shards = *rc::gen::inRange(1, 9);
  const bool timed = *rc::gen::arbitrary<bool>();
  std::vector<std::string> ids = Ids(count);
  Timings timings;
  if (timed) {
    for (const auto& id : ids) {
      if (*rc::gen::inRange(0, 4) != 0) timings[id] = *rc::gen::inRange(0, 5000);
    }
  }
  const std::vector<int> a = AssignShards(ids, shards, timings);
  RC_ASSERT(a.size() == ids.size());
  for (int s : a) RC_ASSERT(s >= 0 && s < shards);  // every id in exactly one shard

  // The same ids in another order land in the same shards.
  std::vector<std::size_t> perm(ids.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937(*rc::gen::arbitrary<unsigned>()));
  std::vector<std::string> shuffled;
  for (auto i : perm) shuffled.push_back(ids[i]);
  const std::vector<int> b = AssignShards(shuffled, shards, timings);
  for (std::size_t j = 0; j < perm.size(); ++j) RC_ASSERT(b[j] == a[perm[j]]);

  if (timings.empty()) {  // by hash: sizes differ by at most one
    std::vector<int> sizes(shards, 0);
    for (int s : a) ++sizes[s];
    RC_ASSERT(*std::max_element(sizes.begin(), sizes.end()) -
                  *std::min_element(sizes.begin(), sizes.end()) <=
              1);
  }
}

TEST(AssignShards, BalancesByDurationLongestFirst) {
  const std::vector<std::string> ids = {"a/1", "a/2", "a/3", "a/4", "a/5"};
  const Timings timings = {{"a/1", 100}, {"a/2", 60}, {"a/3", 50}, {"a/4", 40}, {"a/5", 10}};
  // LPT: 100 → 0; 60 → 1; 50 → 1 (110); 40 → 0 (140); 10 → 1 (120).
  EXPECT_EQ(AssignShards(ids, 2, timings), (std::vector<int>{0, 1, 1, 0, 1}));
}

TEST(AssignShards, UnknownDurationsCountAsTheMean) {
  const std::vector<std::string> ids = {"a/1", "a/2", "a/new"};
  // Mean of the known: 50; sorted 90, 50 (new), 10 → 0, 1, 1.
  EXPECT_EQ(AssignShards(ids, 2, {{"a/1", 90}, {"a/2", 10}}), (std::vector<int>{0, 1, 1}));
}

TEST(SelectShard, KeepsInputOrderAndCoversEverything) {
  std::vector<Scenario> scenarios;
  for (int i = 0; i < 10; ++i)
    scenarios.push_back(Scenario{.protocol = "p", .name = std::to_string(i)});
  std::vector<const Scenario*> all;
  for (const auto& s : scenarios) all.push_back(&s);
  std::multiset<const Scenario*> seen;
  for (int k = 1; k <= 3; ++k) {
    auto slice = SelectShard(all, {k, 3}, {});
    EXPECT_TRUE(std::is_sorted(slice.begin(), slice.end()));  // pointers into one vector
    seen.insert(slice.begin(), slice.end());
  }
  EXPECT_EQ(seen, std::multiset<const Scenario*>(all.begin(), all.end()));
}

TEST(Fnv1a64, KnownVectors) {
  EXPECT_EQ(Fnv1a64(""), 14695981039346656037ull);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cull);
}

}  // namespace
}  // namespace llmconform::harness

#include "mockllm/canonical.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <random>

namespace llmconform::mockllm {
namespace {

TEST(Canonical, FirstDifferencePointsAtTheValue) {
  auto d = FirstDifference(Json::parse(R"({"a":[1,{"b":"x"}],"c":2})"),
                           Json::parse(R"({"a":[1,{"b":"y"}],"c":2})"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->pointer, "/a/1/b");
  EXPECT_EQ(d->Describe(), "/a/1/b: expected \"x\", got \"y\"");
  auto missing = FirstDifference(Json::parse(R"({"a":1,"b":2})"), Json::parse(R"({"a":1})"));
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->Describe(), "/b: missing, expected 2");
  auto extra = FirstDifference(Json::parse(R"([1])"), Json::parse(R"([1,{"k/~":3}])"));
  ASSERT_TRUE(extra);
  EXPECT_EQ(extra->Describe(), "/1: unexpected value {\"k/~\":3} (not in the recording)");
  auto nested =
      FirstDifference(Json::parse(R"({"x":{"k/~":1}})"), Json::parse(R"({"x":{"k/~":2}})"));
  EXPECT_EQ(nested->pointer, "/x/k~1~0");
  EXPECT_FALSE(FirstDifference(Json::parse("1"), Json::parse("1.0")));
}

TEST(Canonical, IgnorePathsWithWildcards) {
  auto ignore = IgnorePaths::Parse({"/user", "/messages/*/name"});
  ASSERT_TRUE(ignore);
  EXPECT_EQ(ignore->Apply(Json::parse(R"({"user":"u","messages":[{"name":"a","c":1},{"c":2}]})")),
            Json::parse(R"({"messages":[{"c":1},{"c":2}]})"));
  auto bad = IgnorePaths::Parse({"user"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "ignore path \"user\": expected a JSON pointer starting with '/'");
}

TEST(Canonical, BodyValue) {
  EXPECT_EQ(BodyValue(""), Json(nullptr));
  EXPECT_EQ(BodyValue(" {\"a\" : 1 } "), Json::parse(R"({"a":1})"));
  EXPECT_EQ(BodyValue("not json"), Json("not json"));
}

Json GenJson(int depth) {
  const int kind = *rc::gen::inRange(0, depth > 0 ? 6 : 4);
  switch (kind) {
    case 0:
      return *rc::gen::arbitrary<int>();
    case 1:
      return *rc::gen::container<std::string>(rc::gen::inRange<char>('a', 'z'));
    case 2:
      return *rc::gen::arbitrary<bool>();
    case 3:
      return nullptr;
    case 4: {
      Json a = Json::array();
      for (int i = *rc::gen::inRange(0, 4); i > 0; --i) a.push_back(GenJson(depth - 1));
      return a;
    }
    default: {
      Json o = Json::object();
      for (int i = *rc::gen::inRange(0, 4); i > 0; --i) {
        o[*rc::gen::container<std::string>(rc::gen::inRange<char>('a', 'e'))] = GenJson(depth - 1);
      }
      return o;
    }
  }
}

// Writes `j` with its object keys in a shuffled order and random whitespace.
std::string Scramble(const Json& j, std::mt19937& rng) {
  auto ws = [&] { return std::string(rng() % 3, " \n\t"[rng() % 3]); };
  if (j.is_object()) {
    std::vector<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
    std::shuffle(keys.begin(), keys.end(), rng);
    std::string out = "{" + ws();
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (i) out += "," + ws();
      out += Json(keys[i]).dump() + ws() + ":" + ws() + Scramble(j[keys[i]], rng);
    }
    return out + ws() + "}";
  }
  if (j.is_array()) {
    std::string out = "[" + ws();
    for (std::size_t i = 0; i < j.size(); ++i) out += (i ? "," + ws() : "") + Scramble(j[i], rng);
    return out + ws() + "]";
  }
  return j.dump();
}

RC_GTEST_PROP(CanonicalProperty, InsensitiveToKeyOrderAndWhitespace, (std::uint32_t seed)) {
  const Json j = GenJson(3);
  std::mt19937 rng(seed);
  const Json scrambled = BodyValue(Scramble(j, rng));
  RC_ASSERT(!FirstDifference(j, scrambled).has_value());
}

// Replay looks recorded bodies up by CanonicalHash and then compares with
// ==: values == calls equal must hash equal, or a request would miss the
// exchange that records it.
RC_GTEST_PROP(CanonicalProperty, EqualValuesHashEqual, (std::uint32_t seed)) {
  const Json j = GenJson(3);
  std::mt19937 rng(seed);
  const Json scrambled = BodyValue(Scramble(j, rng));
  RC_ASSERT(scrambled == j);
  RC_ASSERT(CanonicalHash(scrambled) == CanonicalHash(j));
  // Numbers of another kind but equal value: 1, 1u, 1.0.
  Json floats = j;
  if (floats.is_object() || floats.is_array()) {
    for (auto& e : floats)
      if (e.is_number_integer()) e = static_cast<double>(e.get<std::int64_t>());
  }
  RC_ASSERT(floats == j);
  RC_ASSERT(CanonicalHash(floats) == CanonicalHash(j));
}

TEST(Canonical, HashTellsApartWhatRequestsUsuallyDifferIn) {
  const Json a = Json::parse(R"({"model":"m","messages":[{"role":"user","content":"a"}]})");
  const Json b = Json::parse(R"({"model":"m","messages":[{"role":"user","content":"b"}]})");
  const Json c = Json::parse(R"({"model":"m","messages":[{"role":"user","content":"a"}],"x":1})");
  EXPECT_NE(CanonicalHash(a), CanonicalHash(b));
  EXPECT_NE(CanonicalHash(a), CanonicalHash(c));
  EXPECT_NE(CanonicalHash(Json::parse("[[],[]]")), CanonicalHash(Json::parse("[[[]]]")));
  EXPECT_EQ(CanonicalHash(Json::parse(R"({"n":1})")), CanonicalHash(Json::parse(R"({"n":1.0})")));
}

RC_GTEST_PROP(CanonicalProperty, AChangedLeafIsFoundAtItsPointer, ()) {
  Json j = Json::object();
  j["messages"] = Json::array({GenJson(2), GenJson(2)});
  Json changed = j;
  changed["messages"][1] = Json::array({"changed", j["messages"][1]});
  const auto d = FirstDifference(j, changed);
  RC_ASSERT(d.has_value());
  RC_ASSERT(d->pointer.rfind("/messages/1", 0) == 0u);
}

// Each value is walked once at most, however deep the two nest (comparing a
// subtree whole at each level cost its size times its depth), and a budget
// bounds the walk.
TEST(Canonical, CountingDifferencesWalksEachValueOnceWithinABudget) {
  constexpr std::size_t kDepth = 100, kValues = 10000;
  Json leaf = Json::array();
  for (std::size_t i = 0; i < kValues; ++i) leaf.push_back(i);
  Json expected = leaf, actual = leaf;
  actual.back() = -1;
  for (std::size_t d = 0; d < kDepth; ++d) {
    expected = Json{{"a", std::move(expected)}};
    actual = Json{{"a", std::move(actual)}};
  }
  std::size_t budget = 1000000;
  EXPECT_EQ(CountDifferences(expected, actual, kMaxDifferences, budget), 1u);
  EXPECT_EQ(budget, 1000000 - (kDepth + 1 + kValues));
  const auto all = Differences(expected, actual);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].pointer.size(), kDepth * 2 + 5);  // "/a" a level, then "/9999"
  std::size_t short_budget = kValues;
  EXPECT_EQ(CountDifferences(expected, actual, kMaxDifferences, short_budget), std::nullopt);
  EXPECT_EQ(short_budget, 0u);
  // Limits count as Differences does.
  std::size_t more = 1000000;
  EXPECT_EQ(CountDifferences(Json::array({1, 2, 3}), Json::array({4, 5, 6, 7}), 2, more), 2u);
  EXPECT_EQ(Differences(Json::array({1, 2, 3}), Json::array({4, 5, 6, 7}), 2).size(), 2u);
}

}  // namespace
}  // namespace llmconform::mockllm

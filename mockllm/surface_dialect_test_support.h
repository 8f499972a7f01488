// Helpers the dialect tests of the non-Chat surfaces share
// (responses_, messages_ and gemini_dialect_test.cpp): a reply's bytes, the
// deviation ids its surface's detector finds, the traces of a folder, and a
// dialect's rewrites checked against the detector (header-only; for tests).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "base/test_paths.h"
#include "mockllm/dialect_rewrite.h"
#include "mockllm/trace.h"
#include "mockllm/trace_files.h"
#include "protocols/wire/dialect.h"
#include "protocols/wire/surface.h"

namespace llmconform::mockllm::test_support {

// A streamed reply's recorded bytes, joined.
inline std::string Joined(const RecordedResponse& r) {
  std::string out;
  for (const Chunk& c : r.chunks) out += c.raw;
  return out;
}

// The ids `surface`'s detector finds in `r` (a stream or a body).
inline std::set<std::string> Detect(const RecordedResponse& r, wire::Surface surface) {
  std::set<std::string> ids;
  const auto found = r.streamed ? wire::DetectStreamDialect(surface, Joined(r))
                                : wire::DetectBodyDialect(surface, r.BodyBytes(), r.status);
  for (const auto& d : found) ids.insert(d.id);
  return ids;
}

// Every trace of `dir` (relative to the source root); a file that does not
// load fails the test.
inline std::vector<Trace> Load(const std::string& dir) {
  std::vector<Trace> out;
  const std::filesystem::path root = ::llmconform::test_paths::SourceRoot();
  auto files = TraceFiles({(root / dir).string()});
  EXPECT_TRUE(files.has_value()) << dir;
  if (!files) return out;
  for (const auto& f : *files) {
    auto t = LoadTraceFile(f);
    EXPECT_TRUE(t.has_value()) << f;
    if (t) out.push_back(std::move(*t));
  }
  return out;
}

// A stream rewritten by `d` still reads to the same text, reasoning and
// function calls (names, the value of their arguments, inputs) as `x`'s.
inline void ExpectSameReading(const Dialect& d, wire::Surface surface, const Exchange& x,
                              const RecordedResponse& r) {
  if (!r.streamed) return;
  const auto a = wire::AccumulateSurfaceStream(surface, Joined(x.response));
  const auto b = wire::AccumulateSurfaceStream(surface, Joined(r));
  EXPECT_EQ(a.Text(), b.Text()) << d.name;
  EXPECT_EQ(a.Reasoning(), b.Reasoning()) << d.name;
  const auto calls = a.FunctionCalls();
  const auto got = b.FunctionCalls();
  EXPECT_EQ(calls.size(), got.size()) << d.name;
  for (std::size_t i = 0; i < calls.size() && i < got.size(); ++i) {
    EXPECT_EQ(calls[i]->name, got[i]->name) << d.name;
    // The same value; its text may differ (a whole input is sent as the server writes it).
    EXPECT_EQ(Json::parse(calls[i]->arguments, nullptr, false),
              Json::parse(got[i]->arguments, nullptr, false))
        << d.name;
    EXPECT_EQ(calls[i]->raw.value("input", Json()), got[i]->raw.value("input", Json()))
        << d.name;
  }
}

// What a test checks of each exchange `x` and its rewritten reply `r`.
using ReplyCheck = std::function<void(const Exchange& x, const RecordedResponse& r)>;

// Every exchange rewritten by `d` (a dialect of `surface`) shows only ids
// of `d`, and together they show all of them; the rewrite is deterministic;
// each reply passes `check` (empty: ExpectSameReading).
inline void ExpectExactly(const Dialect& d, const std::vector<Exchange>& exchanges,
                          wire::Surface surface, const ReplyCheck& check = {}) {
  const auto ids = d.Ids();
  const std::set<std::string> want(ids.begin(), ids.end());
  std::set<std::string> seen;
  for (const Exchange& x : exchanges) {
    const bool streams = RequestStreams(x.request);
    const RecordedResponse r = RewriteResponse(x.response, d, streams, surface);
    EXPECT_EQ(r, RewriteResponse(x.response, d, streams, surface)) << d.name;
    for (const std::string& id : Detect(r, surface)) {
      EXPECT_TRUE(want.contains(id)) << d.name << " shows " << id << " on " << x.request.path;
      seen.insert(id);
    }
    if (check) {
      check(x, r);
    } else {
      ExpectSameReading(d, surface, x, r);
    }
  }
  EXPECT_EQ(seen, want) << d.name;
}

// ExpectExactly for each rewrite whose id starts with `prefix`, alone;
// returns how many there are.
inline std::size_t ExpectEachRewriteExactly(std::string_view prefix, wire::Surface surface,
                                            const std::vector<Exchange>& exchanges) {
  std::size_t rows = 0;
  for (const RewritableDeviation& r : RewritableDeviations()) {
    if (!r.id.starts_with(prefix)) continue;
    ++rows;
    Dialect one{.name = std::string(r.id), .surface = surface};
    one.steps.push_back(DialectStep{std::string(r.id), OJson::object()});
    ExpectExactly(one, exchanges, surface);
  }
  return rows;
}

// ExpectExactly for each provider dialect of `surface` (at least `at_least`
// of them); its canonical dialect is `canonical`, with no step.
inline void ExpectEachProviderDialectExactly(wire::Surface surface,
                                             const std::vector<Exchange>& exchanges,
                                             std::string_view canonical, std::size_t at_least) {
  const auto dialects = DialectsOf(surface);
  ASSERT_GE(dialects.size(), at_least);
  for (const Dialect* d : dialects) ExpectExactly(*d, exchanges, surface);
  ASSERT_NE(CanonicalDialect(surface), nullptr);
  EXPECT_EQ(CanonicalDialect(surface)->name, canonical);
  EXPECT_TRUE(CanonicalDialect(surface)->steps.empty());
}

}  // namespace llmconform::mockllm::test_support

// Pins the bytes replay writes: every trace under fixtures/ replayed under a
// set of stream faults, and rewritten into every built-in dialect (with and
// without a fault on top), hashed per trace file. The hashes live in
// mockllm/wire_bytes_golden.txt, one line per (what, trace); a change of any
// byte a replay or a dialect rewrite writes fails here naming the trace, and
// so does a trace added under fixtures/ without its line or a line whose trace
// is gone. A deliberate change (or a new trace) is taken into the file with
// LLMCONFORM_GOLDEN_UPDATE=1, and the diff of that file is the review.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include "base/format.h"
#include "base/hash.h"
#include "base/test_paths.h"
#include "mockllm/dialect_rewrite.h"
#include "mockllm/replay_plan.h"
#include "mockllm/trace_files.h"
#include "protocols/wire/surface.h"

namespace llmconform::mockllm {
namespace {

namespace fs = std::filesystem;

std::string Serialize(const ResponsePlan& p) {
  std::string out =
      Format("{} {} {} {} {}\n", p.status, p.content_type, p.chunked, p.delay_ms, p.content_length);
  for (const auto& [k, v] : p.headers) out += k + ": " + v + "\n";
  for (const Piece& piece : p.pieces)
    out +=
        Format("[{} {} {}]", piece.at_ms, piece.stall_ms_before, piece.bytes.size()) + piece.bytes;
  out += Format("|cut {} resplit {} stalls {} paced {}|", p.cut, p.resplit, p.stalls, p.paced);
  for (const Piece& piece : p.burst) out += Format("<{}>", piece.at_ms) + piece.bytes;
  return out + p.framed;
}

std::string Serialize(const RecordedResponse& r) {
  std::string out = Format("{} {} {}\n", r.status, r.streamed, r.headers.dump());
  if (!r.streamed) return out + r.BodyBytes();
  for (const Chunk& c : r.chunks) out += Format("[{} {}]", c.t_ms, c.raw.size()) + c.raw;
  return out;
}

// Faults that re-frame a stream by its SSE events (and one that does not).
std::vector<Fault> StreamFaults() {
  const char* const kFaults[] = {
      R"({})",
      R"({"drop_done": true})",
      R"({"malformed_event": 1})",
      R"({"error_event": {"after_events": 2}})",
      R"({"keepalive_ms": 7})",
      R"({"stall_ms": 50, "stall_after_events": 2})",
      R"({"cut_after_events": 3})",
      R"({"crlf": true, "bom": true, "drop_done": true})",
      R"({"resplit": true, "seed": 5})",
  };
  std::vector<Fault> out;
  for (const char* text : kFaults) {
    auto f = FaultFromJson(OJson::parse(text));
    EXPECT_TRUE(f.has_value()) << text;
    if (f) out.push_back(*f);
  }
  return out;
}

std::uint64_t Mix(std::uint64_t h, const std::string& text) {
  return Fnv1a64(Format("{:016x}", h) + text);
}

// Every trace that loads under fixtures/ (fixtures/test holds some meant not to).
const std::vector<std::pair<std::string, Trace>>& Traces() {
  static const auto traces = [] {
    std::vector<std::pair<std::string, Trace>> out;
    const fs::path root = ::llmconform::test_paths::SourceRoot();
    auto files = TraceFiles({(root / "fixtures").string()});
    if (!files) return out;
    for (const fs::path& f : *files)
      if (auto t = LoadTraceFile(f)) out.emplace_back(fs::relative(f, root).generic_string(), *t);
    return out;
  }();
  return traces;
}

fs::path GoldenFile() {
  return fs::path(::llmconform::test_paths::SourceRoot()) / "mockllm" / "wire_bytes_golden.txt";
}

// The file's lines "WHAT TRACE HASH", keyed by "WHAT TRACE".
std::map<std::string, std::string> ReadGolden() {
  std::map<std::string, std::string> out;
  std::ifstream in(GoldenFile());
  std::string what, name, hash;
  while (in >> what >> name >> hash) out[what + " " + name] = hash;
  return out;
}

// Compares the hash of `one(exchange)` over every exchange of each trace with
// the golden file's line for it; with LLMCONFORM_GOLDEN_UPDATE set, rewrites
// that file's lines of `what` instead.
template <typename F>
void ExpectGolden(const std::string& what, F one) {
  ASSERT_GT(Traces().size(), 150u);
  std::map<std::string, std::string> golden = ReadGolden();
  std::map<std::string, std::string> now;
  for (const auto& [name, trace] : Traces()) {
    std::uint64_t h = 0;
    for (const Exchange& x : trace.exchanges) h = Mix(h, one(x));
    now[what + " " + name] = Format("{:016x}", h);
  }
  if (std::getenv("LLMCONFORM_GOLDEN_UPDATE") != nullptr) {
    std::erase_if(golden, [&](const auto& kv) { return kv.first.starts_with(what + " "); });
    golden.insert(now.begin(), now.end());
    std::ofstream out(GoldenFile(), std::ios::trunc);
    for (const auto& [key, hash] : golden) out << key << " " << hash << "\n";
    return;
  }
  for (const auto& [key, hash] : now) {
    const auto it = golden.find(key);
    if (it == golden.end())
      ADD_FAILURE() << key << ": no line in " << GoldenFile() << " (a new trace?)";
    else
      EXPECT_EQ(hash, it->second) << key << ": the bytes written changed";
  }
  for (const auto& [key, hash] : golden)
    if (key.starts_with(what + " ") && !now.contains(key))
      ADD_FAILURE() << key << ": in " << GoldenFile() << " but no such trace loads";
}

TEST(WireBytesGolden, ReplayUnderStreamFaults) {
  const std::vector<Fault> faults = StreamFaults();
  ExpectGolden("replay", [&](const Exchange& x) {
    const auto surface = wire::SurfaceOfPath(x.request.path).value_or(wire::Surface::kChat);
    std::string out;
    for (const Fault& fault : faults) out += Serialize(PlanResponse(x.response, fault, 3, surface));
    return out;
  });
}

// Every exchange rewritten into every dialect of `surface` (a dialect of
// another surface than the exchange's leaves it as recorded).
void ExpectDialectGolden(const std::string& what, wire::Surface surface) {
  const OJson status_fault = OJson::parse(R"({"status": 503, "cut_after_bytes": 40})");
  ExpectGolden(what, [&](const Exchange& x) {
    const bool streams = RequestStreams(x.request);
    const wire::Surface own = ExchangeSurface(x);
    std::string out;
    for (const Dialect* d : DialectsOf(surface)) {
      out += Serialize(RewriteResponse(x.response, *d, streams, own));
      if (x.response.status >= 400)
        out += Serialize(RewriteResponse(x.response, *d, !streams, own));
      out += Serialize(PlanDialectResponse(x, *d, status_fault, 9));
    }
    return out;
  });
}

// Chat Completions' dialects under "dialect", the other surfaces' under
// "dialect-SURFACE".
TEST(WireBytesGolden, DialectRewrites) { ExpectDialectGolden("dialect", wire::Surface::kChat); }

TEST(WireBytesGolden, ResponsesDialectRewrites) {
  ExpectDialectGolden("dialect-responses", wire::Surface::kResponses);
}

TEST(WireBytesGolden, MessagesDialectRewrites) {
  ExpectDialectGolden("dialect-messages", wire::Surface::kMessages);
}

TEST(WireBytesGolden, GeminiDialectRewrites) {
  ExpectDialectGolden("dialect-gemini", wire::Surface::kGemini);
}

// Hand-made streams at the edges of SSE framing: a BOM, comment blocks
// between events, CR and CRLF line ends, several data lines, id/event/retry
// fields, a field that only starts with "data", a trailing partial event.
std::vector<RecordedResponse> EdgeStreams() {
  const std::string chunk =
      R"({"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]})";
  const std::string finish =
      R"({"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"total_tokens":3}})";
  const std::string streams[] = {
      "\xEF\xBB\xBF"
      "data: " +
          chunk + "\n\ndata: " + finish + "\n\ndata: [DONE]\n\n",
      ": keep-alive\n\ndata: " + chunk + "\n\n: ping\n\ndata: " + finish + "\n\ndata: [DONE]\n\n",
      "data: " + chunk + "\r\n\r\ndata: " + finish + "\r\rdata: [DONE]\r\n\r\n",
      "event: message\nid: 7\nretry: 10\ndata: " + chunk + "\n\ndata: " + finish.substr(0, 20) +
          "\ndata: " + finish.substr(20) + "\n\ndata:[DONE]\n\n",
      "datafoo: " + chunk + "\ndata: " + chunk + "\n\ndata " + finish + "\n\ndata: [DONE]\n\n",
      "data: " + chunk + "\n\ndata: " + finish + "\n\ndata: [DO",
      "data: " + chunk + "\n\n:only a comment\n\n",
      "data\n\ndata: " + chunk + "\n\n\n\ndata: [DONE]\n\n",
  };
  std::vector<RecordedResponse> out;
  for (const std::string& s : streams) {
    RecordedResponse r;
    r.streamed = true;
    r.headers["content-type"] = "text/event-stream";
    for (std::size_t at = 0, t = 0; at < s.size(); at += 37, t += 10)
      r.chunks.push_back(Chunk{static_cast<std::int64_t>(t), s.substr(at, 37)});
    out.push_back(std::move(r));
  }
  return out;
}

std::uint64_t HashEdges() {
  std::uint64_t h = 0;
  const std::vector<Fault> faults = StreamFaults();
  for (const RecordedResponse& r : EdgeStreams()) {
    for (const Fault& fault : faults) h = Mix(h, Serialize(PlanResponse(r, fault, 3)));
    for (const Dialect* d : DialectsOf(wire::Surface::kChat))
      h = Mix(h, Serialize(RewriteResponse(r, *d, true, wire::Surface::kChat)));
  }
  return h;
}

TEST(WireBytesGolden, EdgesOfFraming) {
  // A field that only starts with "data" is no data line; a stream's BOM is
  // no part of its first line, and a rewritten stream keeps it first.
  EXPECT_EQ(Format("{:016x}", HashEdges()), "cd4dcb5d714af6c9");
}

}  // namespace
}  // namespace llmconform::mockllm

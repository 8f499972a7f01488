// The journal entry's one JSON form: what ToJson writes, JournalRecordFromJson
// reads back as it was, and what is not such an entry is refused with the
// pointer of the value that is wrong.
#include "mockllm/journal_entry.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <iterator>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/json_read.h"

namespace llmconform::mockllm {
namespace {

JournalEntry Replayed() {
  JournalEntry e;
  e.session = "default";
  e.trace = "demo/chat";
  e.method = "POST";
  e.path = "/t/demo%2Fchat/v1/chat/completions";
  e.headers = {{"authorization", "[redacted]"}, {"content-type", "application/json"}};
  e.body = {{"model", "m"}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
  e.status = 200;
  e.exchange = 0;
  e.replayed = true;
  e.stream = true;
  e.bytes = 812;
  e.outcome = "complete";
  e.fault = Json{{"drop_done", true}};
  e.findings = {{FindingKind::kClientDisconnected, "the client left"}};
  e.dialect = "deepseek";
  e.at_ms = 1532;
  return e;
}

// The error reading `text` (one entry) as the journal's reader gives it.
std::string Refused(std::string_view text) {
  auto j = ReadJson("entry", text);
  if (!j) return "not JSON: " + j.error().message;
  auto r = JournalRecordFromJson(*j, JsonPointer("/7"));
  return r ? std::string("accepted") : r.error().message;
}

TEST(JournalEntry, ToJsonIsTheDocumentedForm) {
  const Json j = Replayed().ToJson(3);
  EXPECT_EQ(j, Json::parse(R"({"seq":3,"session":"default","trace":"demo/chat","method":"POST",
    "path":"/t/demo%2Fchat/v1/chat/completions",
    "request":{"headers":{"authorization":"[redacted]","content-type":"application/json"},
               "body":{"model":"m","messages":[{"role":"user","content":"hi"}]}},
    "response":{"status":200,"exchange":0,"stream":true,"bytes":812,"cut":false,
                "outcome":"complete"},
    "fault":{"drop_done":true},
    "findings":[{"rule":"client_disconnected","message":"the client left"}],
    "dialect":"deepseek","at_ms":1532})"));
}

TEST(JournalEntry, ReadsBackWhatItWrote) {
  const JournalEntry e = Replayed();
  auto r = JournalRecordFromJson(e.ToJson(9), JsonPointer());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->seq, 9u);
  EXPECT_FALSE(r->dropped_before);
  EXPECT_EQ(r->entry, e);
}

TEST(JournalEntry, EveryKindHasOneName) {
  for (FindingKind kind : kFindingKinds)
    EXPECT_EQ(FindingKindFromName(FindingKindName(kind)), kind) << FindingKindName(kind);
  EXPECT_FALSE(FindingKindFromName("unknown_route"));  // never written: not a kind
  EXPECT_EQ(FindingKindNames(),
            "request_mismatch, trace_exhausted, no_match, unknown_trace, malformed_request, "
            "admin_request, proxy_failed, client_disconnected, dialect_other_surface");
}

TEST(JournalEntry, AMinimalEntryHasTheDefaults) {
  auto r =
      JournalRecordFromJson(Json::parse(R"({"request":{"body":"text"},"x":1})"), JsonPointer());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_FALSE(r->seq);
  EXPECT_EQ(r->entry.body, "text");
  EXPECT_EQ(r->entry.status, 0);
  EXPECT_FALSE(r->entry.replayed);
  EXPECT_TRUE(r->entry.findings.empty());
  // It writes back to what reads as the same entry (status 0: none was sent).
  auto back = JournalRecordFromJson(r->entry.ToJson(1), JsonPointer());
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(back->entry == r->entry);
}

TEST(JournalEntry, RefusesWhatIsNotAnEntryWhereItIs) {
  EXPECT_EQ(Refused("[]"), "/7: expected object, got array");
  EXPECT_EQ(Refused(R"({"seq":"1"})"), "/7/seq: expected integer, got string");
  EXPECT_EQ(Refused(R"({"seq":-1})"), "/7/seq: expected at least 0");
  EXPECT_EQ(Refused(R"({"dropped_before":0})"), "/7/dropped_before: expected at least 1");
  EXPECT_EQ(Refused(R"({"at_ms":-5})"), "/7/at_ms: expected at least 0");
  EXPECT_EQ(Refused(R"({"method":[]})"), "/7/method: expected string, got array");
  EXPECT_EQ(Refused(R"({"request":"x"})"), "/7/request: expected object, got string");
  EXPECT_EQ(Refused(R"({"request":{"headers":{"a":1}}})"),
            "/7/request/headers/a: expected string, got number");
  EXPECT_EQ(Refused(R"({"request":{"body_cut":1}})"),
            "/7/request/body_cut: expected boolean, got number");
  EXPECT_EQ(Refused(R"({"response":{"status":-1}})"), "/7/response/status: expected at least 0");
  EXPECT_EQ(Refused(R"({"response":{"status":99}})"),
            "/7/response/status: expected an HTTP status (100-599), or 0 for none");
  EXPECT_EQ(Refused(R"({"response":{"status":600}})"),
            "/7/response/status: expected an HTTP status (100-599), or 0 for none");
  EXPECT_EQ(Refused(R"({"response":{"exchange":1.5}})"),
            "/7/response/exchange: expected integer, got number");
  EXPECT_EQ(Refused(R"({"response":{"bytes":1e300}})"),
            "/7/response/bytes: expected integer within 64 bits, got number");
  EXPECT_EQ(Refused(R"({"response":{"outcome":false}})"),
            "/7/response/outcome: expected string, got boolean");
  EXPECT_EQ(Refused(R"({"findings":{}})"), "/7/findings: expected array, got object");
  EXPECT_EQ(Refused(R"({"findings":[1]})"), "/7/findings/0: expected object, got number");
  EXPECT_EQ(Refused(R"({"findings":[{"rule":"no_match"}]})"),
            "/7/findings/0/message: expected string, got nothing (the field is required)");
  EXPECT_EQ(Refused(R"({"findings":[{"rule":"no_match","message":""},{"rule":"x","message":""}]})"),
            "/7/findings/1/rule: unknown finding \"x\" (mockllm writes request_mismatch, "
            "trace_exhausted, no_match, unknown_trace, malformed_request, admin_request, "
            "proxy_failed, client_disconnected, dialect_other_surface)");
  // The first wrong field in reading order is the one named.
  EXPECT_EQ(Refused(R"({"findings":7,"seq":"x"})"), "/7/seq: expected integer, got string");
}

TEST(JournalEntry, HostileValuesAreReadOrRefusedNeverThrown) {
  // Huge and deep values stand where any JSON may (a body, a fault): read
  // as they are (ReadJson bounded the depth).
  const std::string deep = std::string(500, '[') + std::string(500, ']');
  const std::string huge(4 * 1024 * 1024, 'x');
  auto body = ReadJson("body", deep);
  ASSERT_TRUE(body) << body.error().message;
  Json entry = {{"request", {{"body", *body}}}, {"fault", *body}, {"path", huge}};
  auto r = JournalRecordFromJson(entry, JsonPointer());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->entry.path.size(), huge.size());
  EXPECT_EQ(r->entry.body, *body);
  entry["method"] = *body;
  auto refused = JournalRecordFromJson(entry, JsonPointer());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "/method: expected string, got array");
}

// The error ParseJournal gives for `text`, or "accepted".
std::string RefusedJournal(std::string_view name, std::string_view text) {
  auto r = ParseJournal(name, text);
  return r ? std::string("accepted") : r.error().message;
}

TEST(JournalEntry, HostileJournalLinesAreLocatedErrors) {
  const std::string ok = R"({"seq":1,"request":{"body":{}}})";
  // Garbage: the parser's own error, on its line.
  EXPECT_EQ(RefusedJournal("j.jsonl", ok + "\n\x01\x02garbage\n"),
            "j.jsonl:2:1: syntax error while parsing value - invalid literal; last read: "
            "'<U+0001>'");
  EXPECT_EQ(RefusedJournal("j.jsonl", ok + "\n{\"seq\":1,\"request\":{\"body\":\"\xFF\"}}\n"),
            "j.jsonl:2:29: invalid UTF-8 in a string (byte 0xFF)");
  // Wrong types, at the value that is wrong.
  EXPECT_EQ(RefusedJournal("j.jsonl", ok + "\n{\"request\":{},\"findings\":[{\"rule\":5}]}\n"),
            "j.jsonl:2:35: entry 2: /findings/0/rule: expected string, got number");
  EXPECT_EQ(RefusedJournal("j.json", "[" + ok + ",\n {\"request\":{\"headers\":{\"a\":[]}}}]"),
            "j.json:2:29: /1/request/headers/a: expected string, got array");
  // Deep: refused past 512 levels, wherever it stands.
  const std::string deep = std::string(600, '[') + std::string(600, ']');
  EXPECT_EQ(RefusedJournal("j.jsonl", ok + "\n{\"request\":{\"body\":" + deep + "}}\n"),
            "j.jsonl:2:530: arrays and objects nest deeper than 512 levels");
  // Huge: a 16 MiB body is read, not refused, and comes back whole.
  const std::string huge(16 * 1024 * 1024, 'x');
  auto big = ParseJournal("j.jsonl", "{\"request\":{\"body\":\"" + huge + "\"}}\n");
  ASSERT_TRUE(big) << big.error().message;
  EXPECT_EQ((*big)[0]["request"]["body"].get_ref<const std::string&>().size(), huge.size());
}

// A string of any bytes ToJson may be given, valid UTF-8 (a journal's texts are).
std::string JournalEntryGenText() {
  return *rc::gen::oneOf(rc::gen::just(std::string()), rc::gen::just(std::string("h\xC3\xA9llo")),
                         rc::gen::map(rc::gen::arbitrary<std::string>(), [](std::string s) {
                           for (char& c : s) c = static_cast<char>(' ' + (c & 0x3F));
                           return s;
                         }));
}

Json GenValue() {
  return *rc::gen::oneOf(
      rc::gen::just(Json(nullptr)), rc::gen::just(Json::array()),
      rc::gen::map(rc::gen::arbitrary<std::int64_t>(), [](std::int64_t n) { return Json(n); }),
      rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return Json(b); }),
      rc::gen::just(Json{{"messages", {{{"role", "user"}, {"content", "x"}}}}}));
}

template <typename T>
std::optional<T> Maybe(T value) {
  return *rc::gen::arbitrary<bool>() ? std::optional<T>(std::move(value)) : std::nullopt;
}

RC_GTEST_PROP(JournalEntryProperty, WhatToJsonWritesReadsBackTheSame, ()) {
  JournalEntry e;
  e.session = Maybe(JournalEntryGenText());
  e.trace = Maybe(JournalEntryGenText());
  e.method = JournalEntryGenText();
  e.path = JournalEntryGenText();
  const int headers = *rc::gen::inRange(0, 4);
  for (int i = 0; i < headers; ++i)
    e.headers.emplace_back("h" + std::to_string(i), JournalEntryGenText());
  e.body = GenValue();
  if (e.body.is_null() && *rc::gen::arbitrary<bool>()) e.body = JournalEntryGenText();
  e.body_cut = *rc::gen::arbitrary<bool>();
  e.status = *rc::gen::inRange(100, 600);
  e.exchange = Maybe(*rc::gen::inRange<std::size_t>(0, 1000));
  e.replayed = *rc::gen::arbitrary<bool>();
  if (e.replayed) {
    e.stream = *rc::gen::arbitrary<bool>();
    e.bytes = *rc::gen::inRange<std::size_t>(0, 1 << 30);
    e.cut = *rc::gen::arbitrary<bool>();
    e.outcome = *rc::gen::element<std::string>("sending", "complete", "cut", "stopped", "");
  }
  if (*rc::gen::arbitrary<bool>()) e.fault = Json{{"status", 429}};
  const int findings = *rc::gen::inRange(0, 3);
  for (int i = 0; i < findings; ++i)
    e.findings.push_back({*rc::gen::elementOf(std::vector<FindingKind>(std::begin(kFindingKinds),
                                                                       std::end(kFindingKinds))),
                          JournalEntryGenText()});
  if (*rc::gen::arbitrary<bool>())
    e.nearest = Json{{"trace", JournalEntryGenText()}, {"exchange", 1}};
  e.proxied = Maybe(JournalEntryGenText());
  e.dialect = Maybe(JournalEntryGenText());
  if (*rc::gen::arbitrary<bool>()) e.at_ms = *rc::gen::inRange<std::int64_t>(0, 1'000'000'000);
  const auto seq = *rc::gen::arbitrary<std::uint32_t>();

  const Json written = e.ToJson(seq);
  // Through the text, as the admin API and --journal hand it on.
  auto text = ReadJson("journal", DumpJson(written));
  RC_ASSERT(text.has_value());
  auto read = JournalRecordFromJson(*text, JsonPointer("/0"));
  RC_ASSERT(read.has_value());
  RC_ASSERT(read->seq == std::optional<std::uint64_t>(seq));
  RC_ASSERT(read->entry == e);
  RC_ASSERT(read->entry.ToJson(seq) == written);
}

}  // namespace
}  // namespace llmconform::mockllm

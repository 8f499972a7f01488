#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/utf8.h"
#include "harness/difftest/gen_text.h"
#include "harness/difftest/op_record.h"
#include "protocols/thinkingml/gymbro_events.h"

namespace llmconform::harness::difftest {
namespace {

namespace gen = rc::gen;

rc::Gen<std::string> SerpBlock() {
  auto query = gen::oneOf(
      gen::map(gen::resize(6, Text()), [](std::string s) { return s; }),
      gen::element<std::string>(
          "weather paris", "weather paris", "mail me@example.com", "call +1 555 010 9999",
          "ip 10.0.0.1", std::string(90, 'q'), "",
          // Phone shapes and the numbers that only look like them,
          // addresses and card numbers (seed 002 §4).
          "13812345678", "+86 138 1234 5678", "010-12345678", "(555) 010-9999",
          "每天 10000-12000 步 减肥", "1700000000123", "ISBN 9787115428028", "学号 202312345678",
          "2023-2024-2025", "北京市朝阳区建国路 88 号 健身房", "上海市浦东新区世纪大道100号",
          "卡号 4111111111111111", "4111111111111112", "6222021234567890123"));
  return gen::apply(
      [](std::vector<std::string> queries, std::string how) -> std::string {
        const std::string array = Json(queries).dump();
        if (how == "none") return std::string();
        if (how == "indented") return "\n  <!-- <serp_queries>\n" + array + "\n</serp_queries> -->";
        if (how == "one-line") return "\n<!-- <serp_queries>" + array + "</serp_queries> -->";
        if (how == "not-json") return "\n<!-- <serp_queries>\n[\"a\",]\n</serp_queries> -->";
        if (how == "two-blocks")
          return "\n<!-- <serp_queries>\n" + array + "\n</serp_queries> -->" +
                 "\n<!-- <serp_queries>\n[\"weather paris\"]\n</serp_queries> -->";
        return "\n<!-- <serp_queries>\n" + array + "\n</serp_queries> -->";
      },
      gen::resize(7, gen::container<std::vector<std::string>>(query)),
      gen::element<std::string>("ok", "ok", "ok", "none", "indented", "one-line", "not-json",
                                "two-blocks"));
}
rc::Gen<Json> ThinkingMl() {
  auto phase =
      gen::apply([](int id_delta, std::string title, std::string text,
                    bool with_title) { return std::make_tuple(id_delta, title, text, with_title); },
                 gen::element(1, 1, 1, 1, 0, 2), gen::resize(6, Text()),
                 gen::resize(12, TextOf(TmlNearMiss(), 1)), gen::element(true, true, true, false));
  auto reply = gen::apply(
      [](std::optional<std::string> think, std::optional<std::string> serp,
         std::vector<std::tuple<int, std::string, std::string, bool>> phases,
         std::string final_text, std::string serp_block, std::string between, std::string after,
         bool final_present) {
        std::string s;
        if (think) s += "<think>" + *think + "</think>" + between;
        if (serp) s += "<serp>" + *serp + "</serp>" + between;
        s += "<thinking>";
        int id = 0;
        for (const auto& [delta, title, text, with_title] : phases) {
          id += delta;
          s += "<phase id=\"" + std::to_string(id) + "\">";
          if (with_title) s += "<title>" + title + "</title>";
          s += text + "</phase>";
        }
        s += "</thinking>" + between;
        if (final_present) s += "<final>" + final_text + serp_block + "</final>";
        return s + after;
      },
      Opt(gen::resize(8, Text())), Opt(gen::resize(8, Text())),
      gen::resize(
          4, gen::container<std::vector<std::tuple<int, std::string, std::string, bool>>>(phase)),
      gen::resize(16, TextOf(TmlNearMiss(), 1)), SerpBlock(),
      gen::element<std::string>("", "", "\n", " ", "x"),
      gen::element<std::string>("", "", "\n", " tail", "<final>x</final>"),
      gen::element(true, true, true, false));
  // Now and then a near-miss lands anywhere in an otherwise well-built reply.
  auto built = gen::apply(
      [](std::string s, std::optional<std::pair<std::size_t, std::string>> insert) {
        // At a code point boundary: the SUT gets the text as JSON, valid UTF-8.
        if (insert && !s.empty())
          s.insert(Utf8Prefix(s, insert->first % (s.size() + 1)), insert->second);
        return Json{{"text", std::move(s)}};
      },
      reply, Opt(gen::pair(gen::inRange<std::size_t>(0, 400), TmlNearMiss())));
  // And now and then the model's own refusal (TML-5.1), alone or padded.
  return gen::weightedOneOf<Json>(
      {{40, built},
       {1, gen::map(gen::element<std::string>("<<ParsingError>>", " <<ParsingError>>\n",
                                              "<<ParsingError>> and more"),
                    [](std::string s) {
                      return Json{{"text", std::move(s)}};
                    })}});
}
rc::Gen<Json> EscapeLiterals() {
  return gen::map(gen::resize(20, TextOf(TmlNearMiss(), 6)), [](std::string s) {
    return Json{{"text", "<thinking>" + s + "</thinking><final>" + s + "</final>"}};
  });
}

// One event of a GymBro stream before it is written: its kind and a flaw
// that breaks one rule of seed 002 §6.
enum class EventKind { kStatus, kContentDelta, kHeartbeat, kUnknownName };
enum class EventFlaw {
  kNone,
  kNoMessageId,
  kOtherRequestId,
  kEmptyMessageId,
  kDataAsText,    // the data written as a JSON string
  kCutOffJson,    // the data line cut off
  kUnnamed,       // the frame without its event name
  kOutOfStep,     // status out of order, seq skipped, ts in seconds
  kWrongType,     // seq a string, ts a word
  kDeltaNotText,  // content_delta's delta a number
  kNoSeq,
};
struct GymEvent {
  EventKind kind = EventKind::kStatus;
  std::string text;
  EventFlaw flaw = EventFlaw::kNone;
};
// How the stream ends, and how its end is broken (each flaw reads one way
// for completed and another for error).
enum class Terminal { kCompleted, kError, kNone, kCompletedThenError, kCompletedThenLateDelta };
enum class TerminalFlaw {
  kNone,
  kNoMessageId,
  kOffByOne,     // reply_len + 1; error differs from message
  kNegative,     // reply_len -1; no code
  kWrongType,    // reply_len a string; message a number
  kReplyInside,  // the reply text in completed
  kDataAsText,   // completed's data written as a JSON string
};

// The stream of `events` as gymbro.checkEvents takes it, ended by `terminal`.
Json GymStream(const std::vector<GymEvent>& events, Terminal terminal, TerminalFlaw terminal_flaw,
               const std::optional<std::string>& request_id, bool ids_in_order) {
  const std::string rid = request_id.value_or("r-1");
  Json list = Json::array();
  std::string reply;
  int seq = 0;
  static const char* const kStates[] = {"queued", "working", "routed"};
  int state = 0;
  auto base = [&](EventFlaw flaw) {
    Json d{{"message_id", "m-1"}, {"request_id", rid}};
    if (flaw == EventFlaw::kNoMessageId) d.erase("message_id");
    if (flaw == EventFlaw::kOtherRequestId) d["request_id"] = "r-other";
    if (flaw == EventFlaw::kEmptyMessageId) d["message_id"] = "";
    return d;
  };
  auto push = [&](std::string name, Json data, EventFlaw flaw) {
    if (flaw == EventFlaw::kDataAsText) {
      list.push_back({{"event", std::move(name)}, {"data", data.dump()}});
    } else if (flaw == EventFlaw::kCutOffJson) {
      list.push_back({{"event", std::move(name)}, {"data", "{\"message_id\": \"m-1\","}});
    } else if (flaw == EventFlaw::kUnnamed) {
      list.push_back({{"event", "message"}, {"data", std::move(data)}});
    } else {
      list.push_back({{"event", std::move(name)}, {"data", std::move(data)}});
    }
  };
  for (const auto& e : events) {
    Json d = base(e.flaw);
    if (e.kind == EventKind::kStatus) {
      const int at = ids_in_order ? std::min(state++, 2) : static_cast<int>(e.text.size() % 3);
      d["state"] = kStates[e.flaw == EventFlaw::kOutOfStep ? (at + 2) % 3 : at];
      push("status", std::move(d), e.flaw);
    } else if (e.kind == EventKind::kContentDelta) {
      ++seq;
      d["seq"] = e.flaw == EventFlaw::kOutOfStep   ? Json(seq + 1)
                 : e.flaw == EventFlaw::kWrongType ? Json(std::to_string(seq))
                                                   : Json(seq);
      if (e.flaw == EventFlaw::kDeltaNotText) {
        d["delta"] = 42;
      } else {
        d["delta"] = e.text;
        reply += e.text;
      }
      if (e.flaw == EventFlaw::kNoSeq) d.erase("seq");
      push("content_delta", std::move(d), e.flaw);
    } else if (e.kind == EventKind::kHeartbeat) {
      d["ts"] = e.flaw == EventFlaw::kOutOfStep   ? Json(1700000000)
                : e.flaw == EventFlaw::kWrongType ? Json("now")
                                                  : Json(1700000000123);
      push("heartbeat", std::move(d), e.flaw);
    } else {
      push(e.text.size() % 2 ? "done" : "Status", std::move(d), e.flaw);
    }
  }
  auto completed = [&]() {
    Json d = base(terminal_flaw == TerminalFlaw::kNoMessageId ? EventFlaw::kNoMessageId
                                                              : EventFlaw::kNone);
    const auto len = static_cast<std::int64_t>(CountCodePoints(reply));
    d["reply_len"] = terminal_flaw == TerminalFlaw::kOffByOne    ? Json(len + 1)
                     : terminal_flaw == TerminalFlaw::kNegative  ? Json(-1)
                     : terminal_flaw == TerminalFlaw::kWrongType ? Json(std::to_string(len))
                                                                 : Json(len);
    if (terminal_flaw == TerminalFlaw::kReplyInside) d["reply"] = reply;
    push("completed", std::move(d),
         terminal_flaw == TerminalFlaw::kDataAsText ? EventFlaw::kDataAsText : EventFlaw::kNone);
  };
  auto error = [&]() {
    Json d = base(EventFlaw::kNone);
    d["code"] = "upstream_error";
    d["message"] = "the model failed";
    d["error"] = terminal_flaw == TerminalFlaw::kOffByOne ? "something else" : "the model failed";
    if (terminal_flaw == TerminalFlaw::kNegative) d.erase("code");
    if (terminal_flaw == TerminalFlaw::kWrongType) d["message"] = 5;
    push("error", std::move(d), EventFlaw::kNone);
  };
  const bool completes = terminal == Terminal::kCompleted ||
                         terminal == Terminal::kCompletedThenError ||
                         terminal == Terminal::kCompletedThenLateDelta;
  if (completes) completed();
  if (terminal == Terminal::kError || terminal == Terminal::kCompletedThenError) error();
  if (terminal == Terminal::kCompletedThenLateDelta) {
    Json d = base(EventFlaw::kNone);
    d["seq"] = seq + 1;
    d["delta"] = "late";
    push("content_delta", std::move(d), EventFlaw::kNone);
  }
  Json in{{"events", std::move(list)}};
  if (request_id) in["request_id"] = *request_id;
  return in;
}

// Flaws and variants are picked with gen::element, not gen::inRange: inside
// gen::resize the latter only reaches the low end of its range.
rc::Gen<Json> GymbroEvents() {
  auto delta_text = gen::weightedOneOf<std::string>(
      {{6, gen::resize(10, TextOf(TmlNearMiss(), 1))},
       {1, gen::element<std::string>("<final>", "</final>", "<thinking><phase id=\"1\">",
                                     std::string(300, 'a'), "😀😀😀", "")}});
  auto event = gen::apply(
      [](EventKind kind, std::string text, EventFlaw flaw) {
        return GymEvent{kind, std::move(text), flaw};
      },
      gen::weightedOneOf<EventKind>({{2, gen::just(EventKind::kStatus)},
                                     {6, gen::just(EventKind::kContentDelta)},
                                     {1, gen::just(EventKind::kHeartbeat)},
                                     {1, gen::element(EventKind::kUnknownName)}}),
      delta_text,
      gen::weightedOneOf<EventFlaw>(
          {{12, gen::just(EventFlaw::kNone)},
           {1, gen::element(EventFlaw::kNoMessageId, EventFlaw::kOtherRequestId,
                            EventFlaw::kEmptyMessageId, EventFlaw::kDataAsText,
                            EventFlaw::kCutOffJson, EventFlaw::kUnnamed, EventFlaw::kOutOfStep,
                            EventFlaw::kWrongType, EventFlaw::kDeltaNotText, EventFlaw::kNoSeq)}}));
  auto terminal = gen::element(Terminal::kCompleted, Terminal::kCompleted, Terminal::kCompleted,
                               Terminal::kError, Terminal::kError, Terminal::kNone,
                               Terminal::kCompletedThenError, Terminal::kCompletedThenLateDelta);
  auto terminal_flaw = gen::weightedOneOf<TerminalFlaw>(
      {{8, gen::just(TerminalFlaw::kNone)},
       {1, gen::element(TerminalFlaw::kNoMessageId, TerminalFlaw::kOffByOne,
                        TerminalFlaw::kNegative, TerminalFlaw::kWrongType,
                        TerminalFlaw::kReplyInside, TerminalFlaw::kDataAsText)}});
  return gen::apply(&GymStream, gen::resize(12, gen::container<std::vector<GymEvent>>(event)),
                    terminal, terminal_flaw, Opt(gen::element<std::string>("r-1", "r-1", "req-42")),
                    gen::element(true, true, true, false));
}

}  // namespace

std::vector<OpRecord> ThinkingmlOps() {
  std::vector<std::string> event_rules;
  for (std::string_view id : gymbro::kEventRuleIds) event_rules.emplace_back(id);
  return {
      {"thinkingml.validate", ThinkingMl(), {"TML-"}, {}},
      {"thinkingml.escapeThinkingFinalLiterals",
       EscapeLiterals(),
       {"TML-1.11"},
       [](const Json&, const Json&, std::set<std::string>& rules) { rules.insert("TML-1.11"); }},
      {"gymbro.checkEvents", GymbroEvents(), std::move(event_rules), {}},
  };
}

}  // namespace llmconform::harness::difftest

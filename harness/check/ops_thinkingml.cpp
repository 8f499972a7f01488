#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/utf8.h"
#include "harness/check/gen_text.h"
#include "harness/check/op_record.h"
#include "protocols/thinkingml/gymbro_events.h"

namespace llmconform::harness::check {
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
  return gen::apply(
      [](std::string s, std::optional<std::pair<std::size_t, std::string>> insert) {
        if (insert && !s.empty()) s.insert(insert->first % (s.size() + 1), insert->second);
        return Json{{"text", std::move(s)}};
      },
      reply, Opt(gen::pair(gen::inRange<std::size_t>(0, 400), TmlNearMiss())));
}
rc::Gen<Json> EscapeLiterals() {
  return gen::map(gen::resize(20, TextOf(TmlNearMiss(), 6)), [](std::string s) {
    return Json{{"text", "<thinking>" + s + "</thinking><final>" + s + "</final>"}};
  });
}

// One event of a GymBro stream before it is written: its kind and a flaw
// (0 = none) that breaks one rule of seed 002 §6.
struct GymEvent {
  int kind = 0;  // 0 status, 1 content_delta, 2 heartbeat, 3 an unknown name
  std::string text;
  int flaw = 0;
};

// Flaws and variants are picked with gen::element, not gen::inRange: inside
// gen::resize the latter only reaches the low end of its range.
rc::Gen<Json> GymbroEvents() {
  auto delta_text = gen::weightedOneOf<std::string>(
      {{6, gen::resize(10, TextOf(TmlNearMiss(), 1))},
       {1, gen::element<std::string>("<final>", "</final>", "<thinking><phase id=\"1\">",
                                     std::string(300, 'a'), "😀😀😀", "")}});
  auto event = gen::apply(
      [](int kind, std::string text, int flaw) {
        return GymEvent{kind, std::move(text), flaw};
      },
      gen::weightedOneOf<int>(
          {{2, gen::just(0)}, {6, gen::just(1)}, {1, gen::just(2)}, {1, gen::element(3)}}),
      delta_text,
      gen::weightedOneOf<int>(
          {{12, gen::just(0)}, {1, gen::element(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)}}));
  // The terminal: 0 completed, 1 error, 2 none, 3 completed then error,
  // 4 completed then a late delta.
  auto terminal = gen::element(0, 0, 0, 1, 1, 2, 3, 4);
  auto terminal_flaw =
      gen::weightedOneOf<int>({{8, gen::just(0)}, {1, gen::element(1, 2, 3, 4, 5, 6)}});
  return gen::apply(
      [](std::vector<GymEvent> events, int terminal, int terminal_flaw,
         std::optional<std::string> request_id, bool ids_in_order) {
        const std::string rid = request_id.value_or("r-1");
        Json list = Json::array();
        std::string reply;
        int seq = 0;
        static const char* const kStates[] = {"queued", "working", "routed"};
        int state = 0;
        auto base = [&](int flaw) {
          Json d{{"message_id", "m-1"}, {"request_id", rid}};
          if (flaw == 1) d.erase("message_id");
          if (flaw == 2) d["request_id"] = "r-other";
          if (flaw == 3) d["message_id"] = "";
          return d;
        };
        auto push = [&](std::string name, Json data, int flaw) {
          if (flaw == 4) {
            list.push_back({{"event", std::move(name)}, {"data", data.dump()}});
          } else if (flaw == 5) {
            list.push_back({{"event", std::move(name)}, {"data", "{\"message_id\": \"m-1\","}});
          } else if (flaw == 6) {
            list.push_back({{"event", "message"}, {"data", std::move(data)}});
          } else {
            list.push_back({{"event", std::move(name)}, {"data", std::move(data)}});
          }
        };
        for (const auto& e : events) {
          Json d = base(e.flaw);
          if (e.kind == 0) {
            const int at =
                ids_in_order ? std::min(state++, 2) : static_cast<int>(e.text.size() % 3);
            d["state"] = kStates[e.flaw == 7 ? (at + 2) % 3 : at];
            push("status", std::move(d), e.flaw);
          } else if (e.kind == 1) {
            ++seq;
            d["seq"] = e.flaw == 7   ? Json(seq + 1)
                       : e.flaw == 8 ? Json(std::to_string(seq))
                                     : Json(seq);
            if (e.flaw == 9) {
              d["delta"] = 42;
            } else {
              d["delta"] = e.text;
              reply += e.text;
            }
            if (e.flaw == 10) d.erase("seq");
            push("content_delta", std::move(d), e.flaw);
          } else if (e.kind == 2) {
            d["ts"] = e.flaw == 7   ? Json(1700000000)
                      : e.flaw == 8 ? Json("now")
                                    : Json(1700000000123);
            push("heartbeat", std::move(d), e.flaw);
          } else {
            push(e.text.size() % 2 ? "done" : "Status", std::move(d), e.flaw);
          }
        }
        auto completed = [&]() {
          Json d = base(terminal_flaw == 1 ? 1 : 0);
          const auto len = static_cast<std::int64_t>(CountCodePoints(reply));
          d["reply_len"] = terminal_flaw == 2   ? Json(len + 1)
                           : terminal_flaw == 3 ? Json(-1)
                           : terminal_flaw == 4 ? Json(std::to_string(len))
                                                : Json(len);
          if (terminal_flaw == 5) d["reply"] = reply;
          push("completed", std::move(d), terminal_flaw == 6 ? 4 : 0);
        };
        auto error = [&]() {
          Json d = base(0);
          d["code"] = "upstream_error";
          d["message"] = "the model failed";
          d["error"] = terminal_flaw == 2 ? "something else" : "the model failed";
          if (terminal_flaw == 3) d.erase("code");
          if (terminal_flaw == 4) d["message"] = 5;
          push("error", std::move(d), 0);
        };
        if (terminal == 0 || terminal == 3 || terminal == 4) completed();
        if (terminal == 1 || terminal == 3) error();
        if (terminal == 4) {
          Json d = base(0);
          d["seq"] = seq + 1;
          d["delta"] = "late";
          push("content_delta", std::move(d), 0);
        }
        Json in{{"events", std::move(list)}};
        if (request_id) in["request_id"] = *request_id;
        return in;
      },
      gen::resize(12, gen::container<std::vector<GymEvent>>(event)), terminal, terminal_flaw,
      Opt(gen::element<std::string>("r-1", "r-1", "req-42")),
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
       {"TML-"},
       [](const Json&, const Json&, std::set<std::string>& rules) { rules.insert("TML-1.11"); }},
      {"gymbro.checkEvents", GymbroEvents(), std::move(event_rules), {}},
  };
}

}  // namespace llmconform::harness::check

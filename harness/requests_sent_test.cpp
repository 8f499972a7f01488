// The harness's one view of a journal: entries in order, typed, named in one
// notation, and an entry the reader refuses kept (with why) rather than lost.
#include "harness/requests_sent.h"

#include <gtest/gtest.h>

namespace llmconform::harness {
namespace {

TEST(RequestsSent, ReadsEveryEntryInOrderTyped) {
  const Json journal = Json::parse(R"([
    {"seq":1,"method":"GET","path":"/t/x/v1/models","request":{"body":null},
     "response":{"status":200,"exchange":null}},
    {"seq":2,"method":"POST","path":"/t/x/v1/chat/completions",
     "request":{"body":{"messages":[{"role":"user","content":"hi"}]}},
     "response":{"status":400,"exchange":3},
     "findings":[{"rule":"request_mismatch","message":"differs"}]},
    {"seq":3,"method":"POST","path":"/__admin/reset","request":{"body":"x"}}])");
  const std::vector<SentRequest> requests = ReadRequestsSent(journal);
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_TRUE(requests[0].IsModelsList());
  EXPECT_TRUE(requests[0].messages().is_null());
  const SentRequest& chat = requests[1];
  EXPECT_EQ(chat.index, 1u);
  EXPECT_EQ(chat.json, &journal[1]);
  EXPECT_TRUE(chat.problem.empty());
  EXPECT_EQ(chat.read.seq, 2u);
  EXPECT_EQ(chat.exchange(), 3u);
  EXPECT_EQ(chat.entry().status, 400);
  ASSERT_EQ(chat.entry().findings.size(), 1u);
  EXPECT_EQ(chat.entry().findings[0].kind, mockllm::FindingKind::kRequestMismatch);
  EXPECT_EQ(chat.messages(), journal[1]["request"]["body"]["messages"]);
  EXPECT_EQ(chat.MessagesWhere(), "journal[1]/request/body/messages");
  EXPECT_EQ(chat.Where("/request/body/messages/0/role"), "journal[1]/request/body/messages/0/role");
  EXPECT_FALSE(chat.IsAdmin());
  EXPECT_TRUE(requests[2].IsAdmin());
  EXPECT_TRUE(requests[2].messages().is_null());  // a body that is not an object
}

TEST(RequestsSent, AnEntryTheReaderRefusesIsKeptWithWhy) {
  const Json journal = Json::parse(R"([7, {"method":"POST","response":{"status":"500"}}])");
  const std::vector<SentRequest> requests = ReadRequestsSent(journal);
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].problem, "/0: expected object, got number");
  EXPECT_EQ(requests[1].problem, "/1/response/status: expected integer, got string");
  EXPECT_EQ(requests[1].entry().method, "");  // defaults, not half a reading
  EXPECT_EQ(requests[1].Where(), "journal[1]");
  EXPECT_TRUE(ReadRequestsSent(Json("not a journal")).empty());
}

}  // namespace
}  // namespace llmconform::harness

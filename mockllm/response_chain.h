// previous_response_id chains of the Responses API in replay
// (docs/mockllm.md, "previous_response_id").
//
// A Responses request may name an earlier response by `previous_response_id`
// instead of resending the conversation. Replay answers a chain in order: the
// recorded requests name the recorded responses' ids, and the replayed
// responses carry those same ids, so a client that chains what it was sent
// matches the recording. A request naming an id the API would not know (no
// response replayed so far carried it) is answered as the API answers it:
// HTTP 400, {"error":{"message":"Previous response with id '…' not found.",
// "type":"invalid_request_error","param":"previous_response_id",
// "code":"previous_response_not_found"}}, journaled as malformed_request, and
// using up no position of a pinned session.
#pragma once

#include <string>
#include <string_view>

#include "mockllm/replay_book.h"
#include "mockllm/trace.h"

namespace llmconform::mockllm {

// The id a recorded Responses response carries: a body's `id`, or a
// stream's first `response.id` (response.created). "" when it has none.
std::string RecordedResponseId(const RecordedResponse& response);

// Fills, for a trace's Responses exchanges, each one's response_id, and the
// trace's outside_ids (ids its requests name that none of its responses carries).
void NoteResponseChain(LoadedTrace& trace);

// The Responses API's answer to an unknown previous_response_id (the id quoted
// within kMaxQuotedBytes).
Json PreviousResponseNotFound(std::string_view id);

}  // namespace llmconform::mockllm

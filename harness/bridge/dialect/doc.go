// Package dialect serves conform's scripted fake model in the HTTP dialects
// coding agents speak: Anthropic Messages, OpenAI Chat Completions, OpenAI
// Responses and Gemini generateContent/streamGenerateContent, each with and
// without SSE.
//
// A server decodes the agent's request into the wire.ModelStreamParams the
// suite would have seen over conform.wire/v1 (model/stream), hands it to a
// Streamer (the agent kernel's Host.Stream), and renders the scripted
// wire.ModelStreamResult in the dialect: text, tool calls, usage (cache and
// reasoning tokens where the dialect has them), stop reasons, and every
// model error of the spec's taxonomy in the provider's real error shape
// (429 with retry-after, overloaded, context length, content filter, auth,
// invalid request; an error after output has started is the dialect's
// mid-stream error event). Each dialect is checked by decoding what it
// serves with the provider's official Go SDK (the tests of this package).
//
// Counters never overlap on the wire (TA-24) while providers fold some into
// others (OpenAI's prompt_tokens include cached tokens, completion_tokens
// include reasoning; Gemini's promptTokenCount includes cached content); the
// renderers add and the decoders subtract, so a round trip is exact.
//
// Requirements: the servers carry the rows judged from model requests and
// replies to a coding agent through the bridge (TA-01, TA-02, TA-06, TA-24,
// ER-01, ER-02, ER-05, ER-06 and the rest of the model-stream rows); they
// judge nothing themselves.
package dialect

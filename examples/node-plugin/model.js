'use strict';
// A model provider of the pluggableharness ecosystem, in Node: a local echo
// model served as ModelService with @grpc/grpc-js, speaking go-plugin's
// handshake. It registers no gRPC reflection, so conform tells its category
// by which service answers Describe. conform plugin checks it exactly as it
// checks a Go plugin:
//
//   conform plugin --plugin "node examples/node-plugin/model.js"

const { grpc, checkHost, loadServices, loadTypes, fromStruct, statusError, serve } = require('./shared');

checkHost('model.js');
const pkg = loadServices(['pluggableharness/model/v1/service.proto']);
const root = loadTypes(['pluggableharness/model/v1/events.proto']);

// One free, local, text-only model: no tools, images, documents, thinking
// or caching, and pricing that says so.
const MODEL = {
  id: 'node-echo', context_window: 4096, max_output_tokens: 512,
  supports_tool_use: false, supports_vision: false, supports_streaming: true, supports_documents: false,
  thinking: { supported: false, mode: 'THINKING_MODE_NONE' },
  caching: { supported: false, mode: 'CACHING_MODE_NONE', keepalive_supported: false },
  pricing: { currency: 'USD', free: true },
};

const CATEGORY = { INVALID_REQUEST: 5, AUTH_ERROR: 4 };

function modelError(category, message) {
  return { category: 'MODEL_ERROR_CATEGORY_' + category, message, retryable: false,
    raw_detail: JSON.stringify({ error: { type: category.toLowerCase(), message } }) };
}

// refusal is a gRPC status of the category's code carrying the ModelError.
function refusal(category, code, message) {
  const e = modelError(category, message);
  return statusError(root, code, message, 'pluggableharness.model.v1.ModelError',
    { category: CATEGORY[category], message, retryable: false, raw_detail: e.raw_detail });
}

const words = (text) => (text || '').split(/\s+/).filter(Boolean);

function lastUserText(messages) {
  for (let i = (messages || []).length - 1; i >= 0; i--) {
    if (messages[i].role !== 'ROLE_USER') continue;
    return (messages[i].content || []).filter((b) => b.text).map((b) => b.text.text).join(' ');
  }
  return '';
}

let configured = false;

const modelService = {
  GetCapabilities(_call, cb) {
    cb(null, { capabilities: {
      models: [MODEL],
      config_schema: { attributes: [
        { name: 'api_key', type: 'ATTR_TYPE_STRING', required: true, sensitive: true, description: 'a key the plugin never shows' },
      ] },
      supported_hook_points: [],
    } });
  },
  Configure(call, cb) {
    const cfg = fromStruct(call.request.config);
    if (typeof cfg.api_key !== 'string' || cfg.api_key === '') {
      cb(refusal('AUTH_ERROR', grpc.status.UNAUTHENTICATED, 'configuration attribute "api_key" is required'));
      return;
    }
    configured = true;
    cb(null, {});
  },
  Describe(_call, cb) {
    cb(null, { producer: { name: 'conform-node-model-example', version: '0.1.0',
      source: 'github.com/agentconform/conform/examples/node-plugin', category: 'CATEGORY_MODEL', protocol_version: 1 } });
  },
  CountTokens(call, cb) {
    if (call.request.model_id !== MODEL.id) {
      cb(refusal('INVALID_REQUEST', grpc.status.INVALID_ARGUMENT, `no model "${call.request.model_id}"`));
      return;
    }
    cb(null, { count: words(call.request.text).length });
  },
  StreamCompletion(call) {
    const req = call.request;
    if (req.model_id !== MODEL.id) {
      call.emit('error', refusal('INVALID_REQUEST', grpc.status.INVALID_ARGUMENT, `no model "${req.model_id}"`));
      return;
    }
    const refuse = (message) => {
      call.write({ error: { error: modelError('INVALID_REQUEST', message) } });
      call.end();
    };
    for (const m of req.messages || []) {
      for (const b of m.content || []) {
        if (b.image) return refuse(`model ${MODEL.id} does not accept image blocks`);
        if (b.document) return refuse(`model ${MODEL.id} does not accept document blocks`);
        if (b.tool_use || b.tool_result) return refuse(`model ${MODEL.id} does not use tools`);
        if (b.thinking || b.redacted_thinking) return refuse(`model ${MODEL.id} does not accept thinking blocks`);
      }
    }
    const params = req.params || {};
    if (params.thinking_effort !== undefined || params.thinking_budget_tokens !== undefined) {
      return refuse(`model ${MODEL.id} does not think`);
    }
    if (params.tool_choice) return refuse(`model ${MODEL.id} takes no tool choice`);
    let text = lastUserText(req.messages) || 'ok';
    let stop = { reason: 'STOP_REASON_END_TURN' };
    for (const seq of params.stop_sequences || []) {
      const at = seq ? text.indexOf(seq) : -1;
      if (at >= 0) {
        text = text.slice(0, at).trimEnd();
        stop = { reason: 'STOP_REASON_STOP_SEQUENCE', matched_stop_sequence: seq };
      }
    }
    let out = words(text);
    const limit = Math.min(MODEL.max_output_tokens, params.max_output_tokens || Infinity);
    if (out.length > limit) {
      out = out.slice(0, limit);
      stop = { reason: 'STOP_REASON_MAX_TOKENS' };
    }
    let input = 0;
    for (const m of req.messages || []) for (const b of m.content || []) if (b.text) input += words(b.text.text).length;
    for (const s of req.assembled_context || []) for (const b of s.content || []) if (b.text) input += words(b.text.text).length;
    let cancelled = false;
    call.on('cancelled', () => { cancelled = true; }); // normal control flow: stop writing
    const events = out.map((w, i) => ({ text_delta: { text: i ? ' ' + w : w } }));
    events.push({ usage: { input_tokens: input, output_tokens: out.length } }, { stop });
    const next = (i) => {
      if (cancelled) return;
      if (i === events.length) {
        call.end();
        return;
      }
      call.write(events[i]);
      setImmediate(() => next(i + 1));
    };
    next(0);
  },
};

const server = new grpc.Server();
server.addService(pkg.pluggableharness.model.v1.ModelService.service, modelService);
serve(pkg, server);

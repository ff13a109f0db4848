'use strict';
// A tool provider and hook subscriber of the pluggableharness ecosystem,
// in Node: it speaks go-plugin's handshake (the magic cookie, a
// "1|1|tcp|ADDR|grpc" line on stdout) and serves ToolService and
// HookSubscriberService with @grpc/grpc-js, loading conform's transcription
// of the wire definitions (../../api) at run time. conform plugin checks it
// exactly as it checks a Go plugin:
//
//   conform plugin --plugin "node examples/node-plugin/plugin.js"

const { grpc, checkHost, loadServices, loadTypes, fromStruct, toStruct, statusError, serve } = require('./shared');

checkHost('plugin.js');
const pkg = loadServices(['pluggableharness/tool/v1/service.proto', 'pluggableharness/hook/v1/service.proto']);
// protobufjs encodes the ToolError a Configure rejection carries.
const root = loadTypes(['pluggableharness/tool/v1/errors.proto']);

// --- the provider -----------------------------------------------------------

const S = (type, extra) => Object.assign({ type: 'SCHEMA_TYPE_' + type }, extra || {});
const OPS = [
  {
    name: 'upper', kind: 'TOOL_KIND_DATA_SOURCE', risk: 'RISK_CLASS_READ_ONLY',
    description: 'Return the text in upper case.',
    input_schema: S('OBJECT', { required: ['text'], properties: { text: S('STRING', { description: 'any text' }) } }),
    output_schema: S('OBJECT', { required: ['text'], properties: { text: S('STRING') } }),
    streaming: false, concurrency: { safe: true }, default_timeout: { seconds: 5 }, idempotent: true,
  },
  {
    name: 'count', kind: 'TOOL_KIND_DATA_SOURCE', risk: 'RISK_CLASS_READ_ONLY',
    description: 'Count the characters or words of a text, reporting progress.',
    input_schema: S('OBJECT', { required: ['text'], properties: {
      text: S('STRING'), unit: S('STRING', { enum_values: ['chars', 'words'] }) } }),
    output_schema: S('OBJECT', { required: ['count', 'unit'], properties: { count: S('NUMBER'), unit: S('STRING') } }),
    streaming: true, concurrency: { safe: true }, default_timeout: { seconds: 5 }, idempotent: true,
  },
];

// validate checks arguments against the operation's input schema, this
// plugin's own (small) way.
function validate(op, args) {
  const s = op.input_schema;
  for (const r of s.required) if (!(r in args)) return `"${r}" is required`;
  for (const [k, v] of Object.entries(args)) {
    const p = s.properties[k];
    if (!p) continue;
    if (p.type === 'SCHEMA_TYPE_STRING' && typeof v !== 'string') return `"${k}" must be a string`;
    if (p.enum_values && !p.enum_values.includes(v)) return `"${k}" must be one of ${p.enum_values.join(', ')}`;
  }
  return '';
}

let configured = null;

function toolError(category, message) {
  return { event: { error: { category: 'TOOL_ERROR_CATEGORY_' + category, message, retryable: false } } };
}

const toolService = {
  GetSchema(_call, cb) {
    cb(null, {
      tools: OPS,
      config_schema: { attributes: [
        { name: 'api_key', type: 'ATTR_TYPE_STRING', required: true, sensitive: true, description: 'a key the plugin never shows' },
      ] },
      supported_hook_points: ['HOOK_POINT_SESSION_START', 'HOOK_POINT_PLAN_READY', 'HOOK_POINT_SESSION_END'],
    });
  },
  Configure(call, cb) {
    const cfg = fromStruct(call.request.config);
    if (typeof cfg.api_key !== 'string' || cfg.api_key === '') {
      const message = 'configuration attribute "api_key" is required';
      cb(statusError(root, grpc.status.INVALID_ARGUMENT, message, 'pluggableharness.tool.v1.ToolError', { category: 1, message, retryable: false }));
      return;
    }
    configured = cfg;
    cb(null, {});
  },
  Describe(_call, cb) {
    cb(null, { producer: { name: 'conform-node-plugin-example', version: '0.1.0',
      source: 'github.com/agentconform/conform/examples/node-plugin', category: 'CATEGORY_TOOL', protocol_version: 1 } });
  },
  Invoke(call) {
    const req = call.request.call || {};
    const op = OPS.find((o) => o.name === req.tool_name);
    let cancelled = false;
    call.on('cancelled', () => { cancelled = true; });
    if (!op) {
      call.write(toolError('NOT_FOUND', `no operation named "${req.tool_name}"`));
      call.end();
      return;
    }
    const args = fromStruct(req.arguments);
    const bad = validate(op, args);
    if (bad) {
      call.write(toolError('INVALID_ARGUMENTS', bad));
      call.end();
      return;
    }
    if (op.name === 'upper') {
      call.write({ event: { result: { payload: toStruct({ text: args.text.toUpperCase() }) } } });
      call.end();
      return;
    }
    const unit = args.unit || 'chars';
    call.write({ event: { progress: { message: 'counting ' + unit } } });
    setImmediate(() => {
      if (cancelled) return; // a cancel is normal: nothing more to say
      const count = unit === 'words' ? args.text.split(/\s+/).filter(Boolean).length : [...args.text].length;
      call.write({ event: { result: { payload: toStruct({ count, unit }) } } });
      call.end();
    });
  },
};

const hookService = {
  DispatchHook(call, cb) {
    const { payload, mode } = call.request;
    switch (mode) {
      case 'HOOK_MODE_OBSERVE': cb(null, { observe: {} }); return;
      case 'HOOK_MODE_TRANSFORM': cb(null, { transform: { payload } }); return; // nothing here is mutable
      case 'HOOK_MODE_VETO': cb(null, { veto: { decision: 'HOOK_DECISION_ALLOW' } }); return;
    }
    cb({ code: grpc.status.INVALID_ARGUMENT, details: 'unknown mode ' + mode });
  },
};

const server = new grpc.Server();
server.addService(pkg.pluggableharness.tool.v1.ToolService.service, toolService);
server.addService(pkg.pluggableharness.hook.v1.HookSubscriberService.service, hookService);
serve(pkg, server);

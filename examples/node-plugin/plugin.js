'use strict';
// A tool provider and hook subscriber of the pluggableharness ecosystem,
// in Node: it speaks go-plugin's handshake (the magic cookie, a
// "1|1|tcp|ADDR|grpc" line on stdout) and serves ToolService and
// HookSubscriberService with @grpc/grpc-js, loading conform's transcription
// of the wire definitions (../../api) at run time. conform plugin checks it
// exactly as it checks a Go plugin:
//
//   conform plugin --plugin "node examples/node-plugin/plugin.js"

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

const COOKIE_KEY = 'PLUGGABLEHARNESS_AGENT_PLUGIN';
const COOKIE_VALUE = 'pluggableharness-agent-v1-a6f3c9d2-plugin-handshake';

if (process.env[COOKIE_KEY] !== COOKIE_VALUE) {
  console.error('This is a go-plugin plugin: start it through a host, e.g. conform plugin --plugin "node plugin.js".');
  process.exit(1);
}
if (!(process.env.PLUGIN_PROTOCOL_VERSIONS || '1').split(',').includes('1')) {
  console.error('The host does not speak plugin protocol version 1.');
  process.exit(1);
}

const API = path.resolve(__dirname, '..', '..', 'api');
const LOCAL = path.join(__dirname, 'proto');
const loaded = protoLoader.loadSync(
  ['pluggableharness/tool/v1/service.proto', 'pluggableharness/hook/v1/service.proto', 'grpc/health/v1/health.proto', 'plugin/grpc_controller.proto'],
  { keepCase: true, longs: Number, enums: String, defaults: false, oneofs: true, includeDirs: [API, LOCAL] });
const pkg = grpc.loadPackageDefinition(loaded);

// protobufjs encodes the ToolError a Configure rejection carries.
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => {
  for (const dir of [LOCAL, API]) {
    const p = path.join(dir, target);
    if (require('fs').existsSync(p)) return p;
  }
  return target;
};
root.loadSync(['google/rpc/status.proto', 'pluggableharness/tool/v1/errors.proto'], { keepCase: true });
const StatusMsg = root.lookupType('google.rpc.Status');
const ToolErrorMsg = root.lookupType('pluggableharness.tool.v1.ToolError');

// --- google.protobuf.Struct <-> plain JSON --------------------------------

function fromValue(v) {
  switch (v && v.kind) {
    case 'nullValue': return null;
    case 'numberValue': return v.numberValue;
    case 'stringValue': return v.stringValue;
    case 'boolValue': return v.boolValue;
    case 'structValue': return fromStruct(v.structValue);
    case 'listValue': return (v.listValue.values || []).map(fromValue);
  }
  return null;
}
function fromStruct(s) {
  const out = {};
  for (const [k, v] of Object.entries((s && s.fields) || {})) out[k] = fromValue(v);
  return out;
}
function toValue(x) {
  if (x === null || x === undefined) return { nullValue: 'NULL_VALUE' };
  if (typeof x === 'number') return { numberValue: x };
  if (typeof x === 'string') return { stringValue: x };
  if (typeof x === 'boolean') return { boolValue: x };
  if (Array.isArray(x)) return { listValue: { values: x.map(toValue) } };
  return { structValue: toStruct(x) };
}
function toStruct(o) {
  const fields = {};
  for (const [k, v] of Object.entries(o)) fields[k] = toValue(v);
  return { fields };
}

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
      const detail = ToolErrorMsg.encode({ category: 1, message, retryable: false }).finish();
      const st = StatusMsg.encode({ code: grpc.status.INVALID_ARGUMENT, message, details: [
        { type_url: 'type.googleapis.com/pluggableharness.tool.v1.ToolError', value: detail }] }).finish();
      const md = new grpc.Metadata();
      md.set('grpc-status-details-bin', Buffer.from(st));
      cb({ code: grpc.status.INVALID_ARGUMENT, details: message, metadata: md });
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
server.addService(pkg.grpc.health.v1.Health.service, { Check: (_c, cb) => cb(null, { status: 'SERVING' }) });
server.addService(pkg.plugin.GRPCController.service, {
  Shutdown(_c, cb) {
    cb(null, {});
    setImmediate(() => { server.forceShutdown(); process.exit(0); });
  },
});
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) {
    console.error('cannot listen:', err.message);
    process.exit(1);
  }
  // The go-plugin handshake: core protocol 1, app protocol 1, where, gRPC.
  process.stdout.write(`1|1|tcp|127.0.0.1:${port}|grpc\n`);
});

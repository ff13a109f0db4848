'use strict';
// What both Node plugins of this example share: the go-plugin handshake
// (the magic cookie, the "1|1|tcp|ADDR|grpc" line), loading conform's
// transcription of the wire definitions (../../api), Struct <-> JSON, a
// gRPC status carrying an error detail, and serving go-plugin's health and
// controller services beside the plugin's own.

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

const COOKIE_KEY = 'PLUGGABLEHARNESS_AGENT_PLUGIN';
const COOKIE_VALUE = 'pluggableharness-agent-v1-a6f3c9d2-plugin-handshake';

function checkHost(script) {
  if (process.env[COOKIE_KEY] !== COOKIE_VALUE) {
    console.error(`This is a go-plugin plugin: start it through a host, e.g. conform plugin --plugin "node ${script}".`);
    process.exit(1);
  }
  if (!(process.env.PLUGIN_PROTOCOL_VERSIONS || '1').split(',').includes('1')) {
    console.error('The host does not speak plugin protocol version 1.');
    process.exit(1);
  }
}

const API = path.resolve(__dirname, '..', '..', 'api');
const LOCAL = path.join(__dirname, 'proto');

function loadServices(files) {
  const loaded = protoLoader.loadSync(files.concat(['grpc/health/v1/health.proto', 'plugin/grpc_controller.proto']),
    { keepCase: true, longs: Number, enums: String, defaults: false, oneofs: true, includeDirs: [API, LOCAL] });
  return grpc.loadPackageDefinition(loaded);
}

// loadTypes loads messages with protobufjs, to encode status details.
function loadTypes(files) {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => {
    for (const dir of [LOCAL, API]) {
      const p = path.join(dir, target);
      if (fs.existsSync(p)) return p;
    }
    return target;
  };
  root.loadSync(['google/rpc/status.proto'].concat(files), { keepCase: true });
  return root;
}

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

// statusError is a gRPC error of code carrying one detail message (its
// full type name and encoded bytes) in grpc-status-details-bin.
function statusError(root, code, message, typeName, detail) {
  const bytes = root.lookupType(typeName).encode(detail).finish();
  const st = root.lookupType('google.rpc.Status').encode({ code, message, details: [
    { type_url: 'type.googleapis.com/' + typeName, value: bytes }] }).finish();
  const md = new grpc.Metadata();
  md.set('grpc-status-details-bin', Buffer.from(st));
  return { code, details: message, metadata: md };
}

// serve adds go-plugin's health and controller services, listens on
// loopback and prints the handshake line.
function serve(pkg, server) {
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
}

module.exports = { grpc, checkHost, loadServices, loadTypes, fromStruct, toStruct, statusError, serve };

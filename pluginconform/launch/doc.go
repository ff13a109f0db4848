// Package launch starts a plugin the way an upstream pluggableharness kernel
// does: a subprocess speaking gRPC through hashicorp/go-plugin, with the
// ecosystem's one handshake (magic cookie, protocol version 1), the
// category's plugin-map key ("tool"), only PATH, HOME and TMPDIR from
// conform's environment (plus what the caller adds), and the kernel
// callback service served back on broker stream 1. It serves PL-01 (the
// transport) for the checks in package pluginconform.
//
// A plugin that cannot be launched gets an error naming what it did: hung
// before the handshake, exited (with its status), or wrote something other
// than the handshake line, each with the tail of its stderr. Kill leaves no
// process behind: go-plugin's Kill, then the plugin's whole process group.
package launch

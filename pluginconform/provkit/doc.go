// Package provkit is what the checks of every provider category beyond
// tools share (context providers: package contextprov, CP rows; memory
// providers: package memoryprov, MM rows): a run's scenarios and checks in
// the report model (each check names the requirements it proves, a
// requirement fails only by its own checks), the secret watch over
// everything a plugin sends back, the launch of a plugin under its
// category's plugin-map key with the kernel callback service served, the
// configuration conform hands to Configure (a canary for each required
// secret left out), rapid properties whose failures are shrunk, and the
// reading of a gRPC error's structured detail and code.
//
// It builds on package kit (recorder, secret watch, rapid settings,
// configuration), adding what the tool engine does not need.
package provkit

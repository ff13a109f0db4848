// Package provenance names what made a report: conform's version, the
// commit its binary was built from, and a digest of the suite it ran (the
// requirement catalog and the feature files).
//
// A published report outlives the suite that wrote it: scenarios are added,
// checks corrected, catalog rows reworded. The digest lets a reader, and
// `conform report check`, tell a report made by the current suite from a
// stale one without rerunning anything; the commit says where to look when
// they differ. The version alone cannot: it changes far less often than the
// suite does. It serves no requirement of the catalog; it serves the
// reports' honesty (issue 26).
package provenance

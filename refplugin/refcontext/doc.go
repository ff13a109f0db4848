// Package refcontext is conform's reference context provider: a
// convention-file reader (CLAUDE.md-style) served as a go-plugin
// "context" plugin, passing every CP row conform can observe. It reads the
// file its path attribute names, strips front matter and HTML comments,
// sizes everything through the kernel's CountTokens callback, cuts its
// section to the budget itself, and adds a section naming the files
// touched (just-in-time scoping). With Compactor set it declares compactor
// and instead fits the whole chain to the budget, summarizing other
// providers' sections and the conversation history.
//
// Faults break one rule each; the mutants in refcontext/mutants set them.
// The zero Faults is the reference.
package refcontext

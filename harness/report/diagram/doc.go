// Package diagram draws a scenario's recorded message exchange as a sequence
// diagram: the kernel on one lifeline, the harness's fakes on the others
// (the model, the context provider, the tool providers, the hook
// subscribers, the frontend, the recorder of notifications, and the harness
// itself for what it sends the kernel).
//
// New turns the report's messages into events in time order: a request is
// an arrow from the kernel to the fake that serves its method, and the
// fake's answer (at done_ms) an arrow back; a notification is a dashed arrow
// to the recorder; an error answer and a request never answered are marked.
// Two renderings follow from the same events:
//
//   - SVG: inline SVG for the HTML report, drawn by conform with no script,
//     font or image from elsewhere; one fixed-height row per event, labels
//     cut to fit with the full text in a <title> tooltip;
//   - Mermaid: a Mermaid sequenceDiagram for the Markdown report (GitHub
//     renders it in a step summary), its text escaped with
//     safetext.Mermaid so that kernel text cannot leave its message.
//
// Every string in a Message may come from the kernel. The caller redacts
// secrets first (a label cut to fit must not keep half of one); this
// package then normalises and escapes every string for where it goes.
//
// It serves no single catalog requirement: it is how a reader of a report
// sees what a kernel did in a scenario that failed (issue 14).
package diagram

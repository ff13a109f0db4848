// Package safetext makes text a kernel supplies safe to place in a report or
// on a terminal, and keeps the harness's own secrets out of it.
//
// A kernel under test controls its name, version, capabilities, error
// messages, stderr and every message it sends. None of that may act as
// markup or terminal control where conform shows it: a bare CR must not end a
// Markdown code block, an escape sequence must not clear the screen or set a
// window title, "<img src=...>" must not load an image, and a kernel that
// prints its environment must not put a CI token into a report. Requirement
// verdicts are only worth something if the report that carries them cannot be
// rewritten by the kernel it judges.
//
// Every writer uses the same two steps, in this order:
//
//  1. Redactor.Redact replaces the value of every secret-looking variable of
//     conform's own environment with "[redacted:NAME]". It runs on the raw
//     string, before anything cuts it, so a truncated line cannot leak half a
//     secret.
//  2. Text (or Line for single-line places) normalises the string: invalid
//     UTF-8, control characters (C0, DEL, C1), CR, the Unicode line and
//     paragraph separators and bidi controls are written as visible escapes
//     such as \x1b, \r and \u2028; CRLF becomes \n. What is left is legal
//     XML 1.0 character data and safe on a terminal, so the terminal and
//     JUnit writers need nothing more. Markdown and HTML writers then apply
//     their own syntax escaping on top: MarkdownInline, MarkdownCode,
//     MarkdownFence, HTML, and Mermaid for the text of a Mermaid diagram.
//
// The escapes are for people reading a report; they are not reversible (a
// kernel that prints the four characters \x1b looks the same as one that
// prints ESC), which is fine because neither can do harm any more.
//
// It serves no single catalog requirement: it is what makes every verdict in
// every report trustworthy (issue 13, "Kernel text is data").
package safetext

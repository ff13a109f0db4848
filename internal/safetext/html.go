package safetext

import "html"

// HTML makes kernel text safe as HTML element content or as a quoted
// attribute value: Text, then &, <, >, " and ' as character references. Line
// breaks stay \n, which a <pre> element shows as they are; use HTML(Line(s))
// where one line is wanted.
func HTML(s string) string {
	return html.EscapeString(Text(s))
}

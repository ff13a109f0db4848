package report

import (
	"fmt"
	"strings"

	"github.com/agentconform/conform/harness/report/diagram"
)

// The status and level filters are checkboxes read by CSS :has(); without
// it (an old browser) every row simply stays visible. No script is needed
// to read or filter the page.
var (
	filterStatuses = []string{"pass", "partial", "fail", "error", "skipped", "unverifiable", "not_tested"}
	filterLevels   = []string{"must", "should", "may", "seed"}
)

// htmlCSS is the page's whole stylesheet: system fonts only, nothing
// fetched.
var htmlCSS = pageCSS + diagram.Style + "\n" + filterCSS()

func filterCSS() string {
	var b strings.Builder
	for _, s := range filterStatuses {
		fmt.Fprintf(&b, "body:has(#f-st-%s:not(:checked)) tr.st-%s{display:none}\n", s, s)
	}
	for _, l := range filterLevels {
		fmt.Fprintf(&b, "body:has(#f-lv-%s:not(:checked)) tr.lv-%s{display:none}\n", l, l)
	}
	return b.String()
}

const pageCSS = `:root{--fg:#1d2733;--muted:#5d6874;--line:#d5dbe2;--bg:#fff;--soft:#f5f7fa}
*{box-sizing:border-box}
body{margin:0;color:var(--fg);background:var(--bg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
header,main,footer{max-width:1200px;margin:0 auto;padding:0 20px}
header{padding-top:16px}
h1{font-size:22px;margin:8px 0 12px}
h2{font-size:18px;margin:28px 0 10px;padding-bottom:4px;border-bottom:2px solid var(--line)}
h3{font-size:15px;margin:18px 0 6px}
h4{font-size:13px;margin:12px 0 4px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:12.5px}
pre{background:var(--soft);border:1px solid var(--line);border-radius:4px;padding:8px 10px;overflow:auto;max-height:30em;white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0 8px}
table{border-collapse:collapse;width:100%;margin:6px 0 12px}
th,td{border-bottom:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600;position:sticky;top:0}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
table.facts th{width:13em;position:static}
td.mono{white-space:nowrap}
a{color:#1a5fb4}
nav{margin:8px 0 4px;color:var(--muted)}
nav a{margin-right:12px;white-space:nowrap;display:inline-block}
.count{display:inline-block;min-width:1.7em;padding:0 5px;border-radius:9px;background:#e3e8ee;color:var(--fg);font-size:11.5px;font-weight:600;text-align:center;line-height:1.5}
.count.bad{background:#fdecea;color:#b71c1c}
h2 .count{font-size:13px;vertical-align:middle}
.totals{margin:8px 0 0;font-size:13.5px;line-height:1.6}
.banner{padding:10px 14px;border-radius:5px;margin:8px 0;border:1px solid}
.banner.bad{background:#fdecea;border-color:#e57373}
.banner.warn{background:#fff8e1;border-color:#ffca28}
.banner.info{background:#e8f1fb;border-color:#90b8e0}
.compliance{font-size:16px;padding:12px 14px;border-radius:6px;margin:10px 0;border:1px solid var(--line);background:var(--soft)}
.compliance .level{display:inline-block;font-weight:700;color:#fff;border-radius:4px;padding:1px 8px;margin-right:8px}
.lvl-none{background:#c62828}.lvl-must{background:#9a9a00}.lvl-should{background:#3f9a2f}.lvl-all{background:#2e7d32}.lvl-claim{background:#6b7785}
.st{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;white-space:nowrap;border:1px solid transparent}
.st.pass{background:#e6f4ea;color:#1e6b2f}.st.partial{background:#fff4d6;color:#7a5a00;border-color:#e8c65a}
.st.fail{background:#fdecea;color:#b71c1c}.st.error{background:#fce4f1;color:#8e1457}
.st.skipped{background:#eceff1;color:#455a64}.st.unverifiable{background:#efe7f8;color:#5b2d8e}
.st.not_tested,.st.not_reached,.st.not_run{background:#f1f3f5;color:#5d6874}
.st.observed{background:#e3edf9;color:#1f4f8a}
table.attention td:nth-child(3){white-space:nowrap}
.zero{color:#b6bec8}
.filters{border:1px solid var(--line);border-radius:5px;padding:6px 10px;margin:8px 0;background:var(--soft)}
.filters label{margin-right:12px;white-space:nowrap}
.filters .hint{color:var(--muted);font-size:12px}
.stmt{margin:2px 0;color:#2b3a4a}
.src,.note,.meta{margin:2px 0;color:var(--muted);font-size:12.5px}
.note{color:#7a3b00}
article{border:1px solid var(--line);border-radius:6px;padding:4px 14px 10px;margin:12px 0}
article.fail{border-left:5px solid #e53935}article.error{border-left:5px solid #ad1457}
article.partial,article.unverifiable,article.not_reached{border-left:5px solid #e8c65a}article.observed{border-left:5px solid #3d7cc9}
.sd-box{overflow:auto;max-height:44em;border:1px solid var(--line);border-radius:4px;background:#fff}
.legend{color:var(--muted);font-size:12.5px}
details>summary{cursor:pointer;color:#1a5fb4}
footer{color:var(--muted);font-size:12px;margin-top:30px;padding-bottom:30px}
/* On a narrow screen a table scrolls sideways instead of being cut off. */
@media (max-width:760px){header,main,footer{padding:0 10px}table{display:block;overflow-x:auto;-webkit-overflow-scrolling:touch}th{position:static}table.attention,table.attention tbody,table.attention tr,table.attention td,table.reqs,table.reqs tbody,table.reqs tr,table.reqs td{display:block;overflow:visible}table.attention thead,table.reqs thead{display:none}table.attention tr,table.reqs tr{border-bottom:1px solid var(--line);padding:6px 0}table.attention td,table.reqs td{border:0;padding:1px 4px}table.attention td:nth-child(-n+3),table.reqs td:nth-child(-n+3){display:inline-block}table.counts th:nth-child(2),table.counts td:nth-child(2){display:none}table.checks,table.checks tbody{display:block;overflow:visible}table.checks thead{display:none}table.checks tr{display:flex;flex-wrap:wrap;align-items:baseline;gap:0 6px;border-bottom:1px solid var(--line);padding:4px 0}table.checks td{border:0;padding:1px 2px}table.checks td:nth-child(4){order:2}table.checks td:nth-child(3){order:3}table.checks td:nth-child(2){order:4;flex-basis:100%}article{padding:4px 8px 8px}table.facts th{width:auto}h1{font-size:19px}.compliance{font-size:15px}}
@media print{.filters,.sd-box{max-height:none;overflow:visible}}
`

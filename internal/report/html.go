package report

import (
	"encoding/base64"
	"html/template"
	"io"
)

// pageTemplate is the HTML page. Everything it shows comes from the Doc
// through html/template, which escapes it; the figures are data: URLs.
var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"png": func(b []byte) template.URL {
		return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b))
	},
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="dpscope {{.Version}}">
<title>{{.Title}}</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #111; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2rem; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.9rem; } td, th { border: 1px solid #ccc; padding: 0.2rem 0.5rem; text-align: right; }
th { background: #f2f2f2; } td:first-child, th:first-child, td:nth-child(2) { text-align: left; }
dl.data { display: grid; grid-template-columns: max-content 1fr; gap: 0.1rem 1rem; } dl.data dt { font-weight: 600; }
figure { margin: 1.5rem 0; } figure img { max-width: 100%; height: auto; } figcaption { font-size: 0.9rem; color: #333; }
pre { background: #f6f6f6; padding: 0.6rem; overflow-x: auto; font-size: 0.85rem; }
.status { font-weight: 600; } .note { color: #444; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="note">Written by dpscope {{.Version}} from a {{.Kind}} folder. Metrics (ARI, NMI) use the true labels of the data: exploration only, covered by no guarantee.</p>

<h2>Data</h2>
<dl class="data">
{{range .Data}}<dt>{{.Label}}</dt><dd>{{.Value}}</dd>
{{end}}</dl>

<h2>Methods, modes and guarantees</h2>
{{range .Methods}}<h3>{{.Title}} ({{.Name}}), mode {{.Mode}} — {{.Runs}} run{{if ne .Runs 1}}s{{end}}</h3>
{{range .Guarantees}}<p><span class="status">guarantee: {{.Status}}</span>{{if gt .Runs 0}} ({{.Runs}} run{{if ne .Runs 1}}s{{end}}){{end}}</p>
{{if .Reasons}}<ul>{{range .Reasons}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{end}}{{end}}
{{with .Table}}<h2>Results</h2>
<table>
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{range .Notes}}<p class="note">{{.}}</p>
{{end}}{{end}}
{{if .Figures}}<h2>Figures</h2>
{{range .Figures}}<figure id="{{.Name}}">
<img src="{{png .PNG}}" alt="{{.Caption}}">
<figcaption>{{.Caption}}</figcaption>
</figure>
{{end}}{{end}}
{{if .Notes}}<h2>Notes</h2>
<ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul>
{{end}}
<h2>Reproduce</h2>
{{range .Commands}}<p>{{.What}}</p>
{{range .Files}}<p><code>{{.Name}}</code>:</p>
<pre>{{.Content}}</pre>
{{end}}<pre>{{.Line}}</pre>
{{end}}</body>
</html>
`))

// HTML writes the report as one self-contained HTML page.
func (d Doc) HTML(w io.Writer) error { return pageTemplate.Execute(w, d) }

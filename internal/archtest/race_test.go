package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRaceSkipsRunInCI: every test that skips itself under -race
// (israce.SkipNumerics) is in .ci/run's list of tests run without it, by
// name and package, so that no test goes unrun in CI.
func TestRaceSkipsRunInCI(t *testing.T) {
	root := filepath.Join("..", "..")
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`-run '\^\(([A-Za-z0-9_|]+)\)\$'((?:[^\n\\]|\\\n)*)`).FindSubmatch(ci)
	if m == nil {
		t.Fatal(".ci/run has no -run '^(A|B)$' list of the tests skipped under -race")
	}
	listed, pkgs := strings.Split(string(m[1]), "|"), strings.Fields(strings.ReplaceAll(string(m[2]), "\\", " "))
	found := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil || !callsSkipNumerics(fn.Body) {
				continue
			}
			found++
			dir, _ := filepath.Rel(root, filepath.Dir(path))
			if !slices.Contains(listed, fn.Name.Name) || !slices.Contains(pkgs, "./"+filepath.ToSlash(dir)) {
				t.Errorf("%s skips under -race but .ci/run does not run %s in ./%s without it", path, fn.Name.Name, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Error("no test calls israce.SkipNumerics: the check would pass whatever .ci/run lists")
	}
}

// callsSkipNumerics reports whether body calls israce.SkipNumerics.
func callsSkipNumerics(body *ast.BlockStmt) bool {
	calls := false
	ast.Inspect(body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if s, ok := c.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "SkipNumerics" {
				if x, ok := s.X.(*ast.Ident); ok && x.Name == "israce" {
					calls = true
				}
			}
		}
		return !calls
	})
	return calls
}

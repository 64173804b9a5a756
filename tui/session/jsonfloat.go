package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// JSON has no NaN or ±∞, but a session holds them: an ARI not yet
// measured is NaN, an unbounded ε is +∞, a diverged loss may be either.
// encoding/json refuses to write them, so the session goes through a tree
// of plain values (tree) in which a non-finite float is the string "NaN",
// "+Inf" or "-Inf", and back through fill, which accepts those strings
// only where the Go type holds a float. Field names follow encoding/json
// (the json tag's name, or the field's; "-" skips).

// tree turns v into maps, slices and scalars that encoding/json writes.
func tree(v reflect.Value) any {
	if v.Type() == numberType {
		return v.Interface() // a number read earlier: written as it was
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return tree(v.Elem())
	case reflect.Struct:
		out := map[string]any{}
		eachField(v.Type(), func(name string, i []int, omitEmpty bool) {
			f := v.FieldByIndex(i)
			if omitEmpty && f.IsZero() {
				return
			}
			out[name] = tree(f)
		})
		return out
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		fallthrough
	case reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = tree(v.Index(i))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		out := map[string]any{}
		for it := v.MapRange(); it.Next(); {
			out[it.Key().String()] = tree(it.Value())
		}
		return out
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "+Inf"
		case math.IsInf(f, -1):
			return "-Inf"
		}
		return f
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint()
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	}
	return nil // funcs, channels: never in a session
}

var numberType = reflect.TypeFor[json.Number]()

// eachField calls f for every field encoding/json would write, with its
// name, its index path (embedded structs without a tag are flattened) and
// whether it is omitted when zero.
func eachField(t reflect.Type, f func(name string, index []int, omitEmpty bool)) {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
			eachField(sf.Type, func(n string, idx []int, o bool) { f(n, append([]int{i}, idx...), o) })
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f(name, []int{i}, strings.Contains(opts, "omitempty"))
	}
}

// marshalTree writes v as indented JSON through tree.
func marshalTree(v any) ([]byte, error) {
	return json.MarshalIndent(tree(reflect.ValueOf(v)), "", " ")
}

// unmarshalTree reads JSON into the value dst points to through fill.
func unmarshalTree(b []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var t any
	if err := dec.Decode(&t); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value")
	}
	return fill(t, reflect.ValueOf(dst).Elem(), "")
}

// fill sets dst from the tree t, naming where a value does not fit (path,
// e.g. "runs[2].config.epsilon").
func fill(t any, dst reflect.Value, path string) error {
	if t == nil {
		dst.SetZero()
		return nil
	}
	bad := func(want string) error {
		if path == "" {
			path = "the top level"
		}
		return fmt.Errorf("%s: want %s, have %s", path, want, describe(t))
	}
	switch dst.Kind() {
	case reflect.Interface:
		if dst.NumMethod() > 0 {
			break
		}
		dst.Set(reflect.ValueOf(t)) // kept as a tree, decoded later (Event.Data)
		return nil
	case reflect.Pointer:
		v := reflect.New(dst.Type().Elem())
		if err := fill(t, v.Elem(), path); err != nil {
			return err
		}
		dst.Set(v)
		return nil
	case reflect.Struct:
		m, ok := t.(map[string]any)
		if !ok {
			return bad("an object")
		}
		var err error
		eachField(dst.Type(), func(name string, i []int, _ bool) {
			if v, ok := m[name]; ok && err == nil {
				err = fill(v, dst.FieldByIndex(i), join(path, name))
			}
		})
		return err
	case reflect.Slice, reflect.Array:
		s, ok := t.([]any)
		if !ok {
			return bad("a list")
		}
		if dst.Kind() == reflect.Array {
			if len(s) != dst.Len() {
				return bad(fmt.Sprintf("a list of %d", dst.Len()))
			}
		} else {
			dst.Set(reflect.MakeSlice(dst.Type(), len(s), len(s)))
		}
		for i, v := range s {
			if err := fill(v, dst.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		m, ok := t.(map[string]any)
		if !ok || dst.Type().Key().Kind() != reflect.String {
			return bad("an object")
		}
		out := reflect.MakeMapWithSize(dst.Type(), len(m))
		for k, v := range m {
			e := reflect.New(dst.Type().Elem()).Elem()
			if err := fill(v, e, join(path, k)); err != nil {
				return err
			}
			out.SetMapIndex(reflect.ValueOf(k).Convert(dst.Type().Key()), e)
		}
		dst.Set(out)
		return nil
	case reflect.String:
		s, ok := t.(string)
		if !ok {
			return bad("a string")
		}
		dst.SetString(s)
		return nil
	case reflect.Bool:
		b, ok := t.(bool)
		if !ok {
			return bad("true or false")
		}
		dst.SetBool(b)
		return nil
	case reflect.Float32, reflect.Float64:
		var f float64
		switch v := t.(type) {
		case json.Number:
			var err error
			if f, err = strconv.ParseFloat(string(v), 64); err != nil {
				return bad("a number")
			}
		case string:
			switch v {
			case "NaN":
				f = math.NaN()
			case "+Inf":
				f = math.Inf(1)
			case "-Inf":
				f = math.Inf(-1)
			default:
				return bad("a number")
			}
		default:
			return bad("a number")
		}
		if dst.OverflowFloat(f) {
			return bad("a number in range")
		}
		dst.SetFloat(f)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := t.(json.Number)
		if !ok {
			return bad("an integer")
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil || dst.OverflowInt(i) {
			return bad("an integer in range")
		}
		dst.SetInt(i)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := t.(json.Number)
		if !ok {
			return bad("an integer")
		}
		u, err := strconv.ParseUint(string(n), 10, 64)
		if err != nil || dst.OverflowUint(u) {
			return bad("a non-negative integer in range")
		}
		dst.SetUint(u)
		return nil
	}
	return bad("nothing (" + dst.Type().String() + " is not stored)")
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// describe names the kind of a tree value for an error.
func describe(t any) string {
	switch v := t.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		if len(v) > 20 {
			v = v[:20] + "…"
		}
		return strconv.Quote(v)
	case json.Number:
		return string(v)
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprintf("%T", t)
}

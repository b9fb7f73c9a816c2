package locales_test

import (
	"fmt"
	"testing/fstest"

	"github.com/talonhq/talon/locales"
)

func ExampleLocalizer_Message() {
	b, err := locales.New(locales.Options{})
	if err != nil {
		panic(err)
	}
	// A plugin ships its own messages; Japanese lacks the parameter text.
	plugin := fstest.MapFS{
		"en/weather.ftl": {Data: []byte("tool-city-weather = Current weather for { $city }.\ntool-city-weather-param-city = City name.\n")},
		"ja/weather.ftl": {Data: []byte("tool-city-weather = { $city } の現在の天気を返します。\n")},
	}
	if err := b.AddFS(plugin, "wasm.weather"); err != nil {
		panic(err)
	}
	ja := b.Localizer("ja_JP.UTF-8")
	fmt.Println(ja.Lang())
	fmt.Println(ja.Message(locales.ToolID("city_weather"), map[string]any{"city": "大阪"}))
	fmt.Println(ja.Message(locales.ParamID("city_weather", "city"), nil))
	fmt.Println(ja.Message("tool-unknown", nil))
	// Output:
	// ja
	// 大阪 の現在の天気を返します。
	// City name.
	// {tool-unknown}
}

func ExampleNew() {
	b, err := locales.New(locales.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(b.Languages())
	fmt.Println(b.Localizer("ja").Message(locales.ParamID("file_read", "limit"), nil))
	// Output:
	// [en ja]
	// 返す最大行数。
}

func ExampleParseFTL() {
	src := "# Shown to the model.\ntool-greet = Hello, { $name }!\n    .short = Hi\n"
	res, err := locales.ParseFTL("greet.ftl", []byte(src))
	if err != nil {
		panic(err)
	}
	m := res.Messages[0]
	fmt.Println(m.ID, m.Vars, m.Comment)
	fmt.Println(m.Value)
	fmt.Println(m.Attributes["short"])

	_, err = locales.ParseFTL("bad.ftl", []byte("tool-x = { -brand }\n"))
	fmt.Println(err)
	// Output:
	// tool-greet [name] Shown to the model.
	// Hello, {$name}!
	// Hi
	// bad.ftl:1: terms ({ -name }) are not supported; only { $variable } and string literals such as {"{"} may appear inside braces
}

func ExampleDetect() {
	env := map[string]string{"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}
	fmt.Println(locales.Detect("", "", func(k string) string { return env[k] }))
	fmt.Println(locales.Detect("ja", "", func(k string) string { return env[k] }))
	// Output:
	// zh-CN
	// ja
}

func ExampleToolID() {
	fmt.Println(locales.ToolID("file_read"))
	fmt.Println(locales.ParamID("file_read", "offset"))
	fmt.Println(locales.ErrorID("file_read", "binary"))
	// Output:
	// tool-file-read
	// tool-file-read-param-offset
	// tool-file-read-error-binary
}

func ExampleCheck() {
	fsys := fstest.MapFS{
		"en/tools.ftl": {Data: []byte("tool-a = A { $n }\ntool-b = B\n")},
		"ja/tools.ftl": {Data: []byte("tool-a = あ\n")},
	}
	for _, f := range locales.Check(fsys) {
		fmt.Println(f)
	}
	// Output:
	// ja/tools.ftl: missing key tool-b (en/tools.ftl:2)
	// ja/tools.ftl:1: variables of tool-a differ from en: uses no variables, en uses { $n } (en/tools.ftl:1)
}

func ExampleFormatMessage() {
	fmt.Print(locales.FormatMessage(locales.Message{
		ID:      "tool-x",
		Value:   "Line one\n  indented {$v}",
		Comment: "untranslated",
	}))
	// Output:
	// # untranslated
	// tool-x =
	//     Line one
	//     {"  "}indented { $v }
}

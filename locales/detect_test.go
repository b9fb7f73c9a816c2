package locales

import "testing"

func TestDetect(t *testing.T) {
	tests := []struct {
		name       string
		flag       string
		configured string
		env        map[string]string
		want       string
	}{
		{name: "nothing set", want: "en"},
		{name: "flag wins", flag: "ja", configured: "fr", env: map[string]string{"LANG": "de_DE.UTF-8"}, want: "ja"},
		{name: "config next", configured: "fr", env: map[string]string{"LANG": "de_DE.UTF-8"}, want: "fr"},
		{name: "flag with posix form", flag: "zh_CN.UTF-8", want: "zh-CN"},
		{name: "unusable flag falls through", flag: "C", configured: "ko", want: "ko"},
		{name: "LANGUAGE list, first usable", env: map[string]string{"LANGUAGE": ":C:pt_BR:en", "LC_ALL": "de_DE.UTF-8"}, want: "pt-BR"},
		{name: "LANGUAGE before LC_ALL", env: map[string]string{"LANGUAGE": "ja", "LC_ALL": "de_DE.UTF-8"}, want: "ja"},
		{name: "LC_ALL before LC_MESSAGES", env: map[string]string{"LC_ALL": "de_DE.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8", "LANG": "es_ES.UTF-8"}, want: "de-DE"},
		{name: "LC_MESSAGES before LANG", env: map[string]string{"LC_MESSAGES": "fr_FR.UTF-8", "LANG": "es_ES.UTF-8"}, want: "fr-FR"},
		{name: "LANG last", env: map[string]string{"LANG": "ja_JP.UTF-8@mod"}, want: "ja-JP"},
		{name: "C and POSIX skipped", env: map[string]string{"LC_ALL": "C", "LC_MESSAGES": "POSIX", "LANG": "ja_JP.eucJP"}, want: "ja-JP"},
		{name: "C.UTF-8 skipped", env: map[string]string{"LC_ALL": "C.UTF-8"}, want: "en"},
		{name: "garbage skipped", env: map[string]string{"LANGUAGE": "!!", "LANG": "not a locale"}, want: "en"},
		{name: "spaces trimmed", configured: "  ja  ", want: "ja"},
		{name: "script subtag", flag: "zh-Hant-TW", want: "zh-Hant-TW"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			if got := Detect(tt.flag, tt.configured, getenv); got != tt.want {
				t.Errorf("Detect = %q, want %q", got, tt.want)
			}
		})
	}
	if got := Detect("", "", nil); got != "en" {
		t.Errorf("Detect with nil getenv = %q, want en", got)
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   string
		wantOK bool
	}{
		{name: "tag", in: "ja", want: "ja", wantOK: true},
		{name: "posix", in: "zh_CN.UTF-8", want: "zh-CN", wantOK: true},
		{name: "modifier", in: "ja_JP.UTF-8@x", want: "ja-JP", wantOK: true},
		{name: "case", in: "EN_us", want: "en-US", wantOK: true},
		{name: "empty", in: ""},
		{name: "C", in: "C"},
		{name: "POSIX", in: "POSIX"},
		{name: "C.UTF-8", in: "C.UTF-8"},
		{name: "und", in: "und"},
		{name: "not a tag", in: "english please"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Normalize(tt.in)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("Normalize(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

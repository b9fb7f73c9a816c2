module github.com/talonhq/talon/plugins/pdk

go 1.24

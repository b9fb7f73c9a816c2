tool-count-vowels = テキストの母音を数えます。
tool-count-vowels-param-text = 母音を数えるテキスト。
tool-shout = テキストを大文字で叫びます。
tool-shout-param-text = 叫ぶテキスト。

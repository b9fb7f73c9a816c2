tool-word-count = テキストの単語数・行数・文字数を数えます。
tool-word-count-param-text = 数えるテキスト。
tool-reverse-text = テキストを一文字ずつ逆順にします。
tool-reverse-text-param-text = 逆順にするテキスト。

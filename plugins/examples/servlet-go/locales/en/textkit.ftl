tool-word-count = Count the words, lines and characters of a text.
tool-word-count-param-text = The text to count.
tool-reverse-text = Reverse a text, character by character.
tool-reverse-text-param-text = The text to reverse.

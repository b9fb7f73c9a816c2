tool-count-vowels = Count the vowels of a text.
tool-count-vowels-param-text = The text to count in.
tool-shout = Say a text in capitals.
tool-shout-param-text = The text to shout.

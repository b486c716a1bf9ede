import SousInterchange
import Testing

/// Text fields of JSON-LD carry HTML.
struct HTMLTextTests {
    static let plainTexts: [(String, String)] = [
        ("Salt &amp; pepper", "Salt & pepper"),
        ("&quot;Best&quot; cake", "\"Best\" cake"),
        ("Mom&#39;s pie", "Mom's pie"),
        ("Mom&#x27;s pie", "Mom's pie"),
        ("1&nbsp;cup", "1 cup"),
        ("&frac12; cup", "½ cup"),
        ("&#8531; cup", "⅓ cup"),
        ("Mix <strong>well</strong>.", "Mix well."),
        ("  two\n\t lines  ", "two lines"),
        ("a<br>b<br/>c", "a b c"),
        ("&lt;b&gt;escaped&lt;/b&gt; tags", "escaped tags"),
        ("cook &lt; 5 min", "cook < 5 min"),
        ("AT&T &unknown; &#0; &#xZZ;", "AT&T &unknown; &#0; &#xZZ;"),
        ("Cr&egrave;me br&ucirc;l&eacute;e", "Crème brûlée"),
        ("<p>One</p><p>Two</p>", "One Two"),
        ("<!-- comment -->Text", "Text"),
    ]

    @Test(arguments: HTMLTextTests.plainTexts)
    func plainText(_ html: String, _ text: String) {
        #expect(HTMLText.plainText(html) == text)
    }

    /// Punctuation left between blocks ("</li>,<li>", a site's joined list) is not a line.
    @Test func punctuationBetweenBlocksIsNoLine() {
        #expect(
            HTMLText.lines("<ol><li>Heat the oil.</li>,<li>Fry the onions.</li> , <li>Serve.</li></ol>") == [
                "Heat the oil.", "Fry the onions.", "Serve.",
            ])
        #expect(HTMLText.lines("<p>Step 1</p>;<p>…</p><p>2 eggs</p>") == ["Step 1", "2 eggs"])
    }

    @Test func blockTagsAndLineBreaksSplitLines() {
        #expect(HTMLText.lines("<p>Boil water.</p>\n<p>Add   pasta.</p>") == ["Boil water.", "Add pasta."])
        #expect(HTMLText.lines("1. Chop.\r\n2. Fry.<br>3. Serve.\n\n") == ["1. Chop.", "2. Fry.", "3. Serve."])
        #expect(HTMLText.lines("<ol><li>One</li><li>Two</li></ol>") == ["One", "Two"])
        #expect(HTMLText.lines("  ") == [])
    }
}

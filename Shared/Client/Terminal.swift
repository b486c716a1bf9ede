import Foundation

/// Reading secrets (passwords) the way every Sous tool does: from the terminal with echo off,
/// after a prompt on stderr, or as one line of a piped standard input. Never from argv.
public enum Terminal {
    public static func readSecret(prompt: String) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return readLine(strippingNewline: true) }
        FileHandle.standardError.write(Data(prompt.utf8))
        var settings = termios()
        tcgetattr(STDIN_FILENO, &settings)
        let original = settings
        settings.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        defer {
            var restore = original
            tcsetattr(STDIN_FILENO, TCSANOW, &restore)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true)
    }
}

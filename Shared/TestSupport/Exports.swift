// Every test that uses the test support gets the socket check (`@Suite(.closesItsSockets)`).
@_exported public import SocketCheck

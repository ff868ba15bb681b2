import Dispatch

/// Single questions to GIO go before readings of every entry. GIO loads each desktop entry under one
/// lock for all of them, and a thread that waits for that lock seldom gets it from one loading entry
/// after entry: with 300 entries installed, the first link's handlers waited 9–16 ms for the
/// daemon's reading of every installed program (`make bench-cold`). So a reading of every entry
/// waits, before each entry it loads, while any question is being answered; a question waits for
/// one entry's load at most.
enum CatalogTurns {
    private static let questions = DispatchGroup()

    /// A question (an entry, a type's handlers or default, a launch) is being answered: whole readings
    /// wait until it is `answered()`. Never around a reading of every entry: it would wait for itself.
    static func asking() { questions.enter() }
    static func answered() { questions.leave() }

    /// Called by a reading of every entry before it loads the next: returns once no question is being answered.
    static func beforeNextEntry() { questions.wait() }
}

internal import CGtkRuntime
internal import Planning

/// The chooser's widgets and the answer they lead to. GTK owns the widgets (the toplevel is kept by
/// GTK, its children by their parents); this object lives for the whole of `run()`, and every signal
/// handler reaches it through its user data (unretained).
final class ChooserWindow {
    private let request: ChooserRequest
    /// The candidates' entries, by row; nil where none is installed.
    private let entries: [AppEntry?]
    private var window: OpaquePointer! = nil
    private var list: OpaquePointer! = nil
    private var once: OpaquePointer! = nil
    private var always: OpaquePointer! = nil
    private var openerOnly: OpaquePointer? = nil
    private var cancelButton: OpaquePointer! = nil
    private(set) var answer: ChooserAnswer? = nil

    /// GTK must be loaded and initialised (`gtk_init_check`).
    init(_ request: ChooserRequest) {
        self.request = request
        entries = request.candidates.map { AppEntry(id: $0.app) }
    }

    /// Builds and presents the window, then runs GLib's default main context until an answer.
    /// The opener's token (`XDG_ACTIVATION_TOKEN`, `DESKTOP_STARTUP_ID`) is GTK's to use on this
    /// first `gtk_window_present`. `g_main_context_iteration`.
    func run() -> ChooserAnswer {
        build()
        gtk.gtk_window_present(window)
        while answer == nil { _ = gtk.g_main_context_iteration(nil, 1) }
        return answer!
    }

    // MARK: Building

    private func build() {
        window = gtk.gtk_window_new()
        gtk.gtk_window_set_title(window, "Open with — Waypost")
        gtk.gtk_window_set_default_size(window, 440, -1)

        let box = gtk.gtk_box_new(Int32(WAYPOST_GTK_ORIENTATION_VERTICAL), 12)!
        setMargins(box, 18)
        let heading = plainLabel(ShownText.heading(subject: request.subject))
        gtk.gtk_label_set_wrap(heading, 1)
        gtk.gtk_label_set_wrap_mode(heading, Int32(WAYPOST_PANGO_WRAP_WORD_CHAR))
        gtk.gtk_label_set_max_width_chars(heading, 50)
        gtk.gtk_box_append(box, heading)

        list = gtk.gtk_list_box_new()
        gtk.gtk_list_box_set_selection_mode(list, Int32(WAYPOST_GTK_SELECTION_BROWSE))
        gtk.gtk_list_box_set_activate_on_single_click(list, 0)
        for (destination, entry) in zip(request.candidates, entries) {
            gtk.gtk_list_box_append(list, row(destination, entry))
        }
        let scroller = gtk.gtk_scrolled_window_new()!
        gtk.gtk_scrolled_window_set_policy(scroller, Int32(WAYPOST_GTK_POLICY_NEVER), Int32(WAYPOST_GTK_POLICY_AUTOMATIC))
        gtk.gtk_scrolled_window_set_propagate_natural_height(scroller, 1)
        gtk.gtk_scrolled_window_set_max_content_height(scroller, 320)
        gtk.gtk_scrolled_window_set_child(scroller, list)
        gtk.gtk_box_append(box, scroller)

        once = gtk.gtk_check_button_new_with_mnemonic(ShownText.once)
        always = gtk.gtk_check_button_new_with_mnemonic(ShownText.always(request.scope))
        gtk.gtk_check_button_set_group(always, once)
        gtk.gtk_check_button_set_active(once, 1)
        gtk.gtk_box_append(box, once)
        gtk.gtk_box_append(box, always)
        if let opener = request.opener {
            let name = AppEntry(id: opener)?.displayName ?? opener
            let check = gtk.gtk_check_button_new_with_mnemonic(ShownText.openerOnly(name: name))!
            gtk.gtk_widget_set_sensitive(check, 0)  // until "Always" is chosen
            gtk.gtk_widget_set_margin_start(check, 24)
            gtk.gtk_box_append(box, check)
            openerOnly = check
        }

        let buttons = gtk.gtk_box_new(Int32(WAYPOST_GTK_ORIENTATION_HORIZONTAL), 6)!
        gtk.gtk_widget_set_halign(buttons, Int32(WAYPOST_GTK_ALIGN_END))
        cancelButton = gtk.gtk_button_new_with_mnemonic("_Cancel")
        let open = gtk.gtk_button_new_with_mnemonic("_Open")!
        gtk.gtk_widget_add_css_class(open, "suggested-action")
        gtk.gtk_box_append(buttons, cancelButton)
        gtk.gtk_box_append(buttons, open)
        gtk.gtk_box_append(box, buttons)

        gtk.gtk_window_set_child(window, box)
        gtk.gtk_window_set_default_widget(window, open)
        if let first = gtk.gtk_list_box_get_row_at_index(list, 0) {
            gtk.gtk_list_box_select_row(list, first)
            gtk.gtk_window_set_focus(window, first)
        }
        connectSignals(window: window, list: list, always: always, cancel: cancelButton, open: open)
    }

    /// A row: the entry's icon (a blank of the same size when there is none) and its name, or the
    /// id when no entry is installed.
    private func row(_ destination: NamedDestination, _ entry: AppEntry?) -> OpaquePointer {
        let line = gtk.gtk_box_new(Int32(WAYPOST_GTK_ORIENTATION_HORIZONTAL), 12)!
        setMargins(line, 6)
        let image = entry?.makeImage() ?? gtk.gtk_image_new()!
        gtk.gtk_image_set_icon_size(image, Int32(WAYPOST_GTK_ICON_SIZE_LARGE))
        gtk.gtk_box_append(line, image)
        gtk.gtk_box_append(line, plainLabel(ShownText.row(name: entry?.displayName ?? destination.app, window: destination.window)))
        return line
    }

    /// A label showing `text` as it is (`gtk_label_set_text`: no markup, no mnemonic), left-aligned.
    private func plainLabel(_ text: String) -> OpaquePointer {
        let label = gtk.gtk_label_new(nil)!
        gtk.gtk_label_set_text(label, text)
        gtk.gtk_label_set_xalign(label, 0)
        return label
    }

    private func setMargins(_ widget: OpaquePointer, _ margin: Int32) {
        gtk.gtk_widget_set_margin_top(widget, margin)
        gtk.gtk_widget_set_margin_bottom(widget, margin)
        gtk.gtk_widget_set_margin_start(widget, margin)
        gtk.gtk_widget_set_margin_end(widget, margin)
    }

    // MARK: Answers

    /// The selected row with the once/always setting, and a token for the chosen app's window.
    func pick() {
        guard answer == nil, let row = gtk.gtk_list_box_get_selected_row(list) else { return }
        let index = Int(gtk.gtk_list_box_row_get_index(row))
        guard request.candidates.indices.contains(index) else { return }
        let lasting: ChooserAnswer.Lasting = gtk.gtk_check_button_get_active(always) != 0 ? .always : .once
        let limit: ChooserAnswer.OpenerLimit =
            if lasting == .always, let openerOnly, gtk.gtk_check_button_get_active(openerOnly) != 0 { .opener } else { .any }
        answer = .pick(request.candidates[index], lasting, limit, token: entries[index]?.activationToken() ?? "")
    }

    func cancel() {
        if answer == nil { answer = .cancel }
    }

    /// Return anywhere picks, except on Cancel, which it activates; Escape cancels. Tab leaves the
    /// list for the radios at once and Shift+Tab comes back to the selected row: GtkListBox would
    /// move through every row, and in browse mode the selection follows the focus.
    func keyPressed(_ keyval: UInt32) -> Bool {
        let focus = gtk.gtk_window_get_focus(window)
        switch keyval {
        case 0xff09, 0xff89:  // GDK_KEY_Tab, GDK_KEY_KP_Tab
            guard let focus, gtk.gtk_widget_get_parent(focus) == list else { return false }
            _ = gtk.gtk_widget_grab_focus(gtk.gtk_check_button_get_active(always) != 0 ? always : once)
            return true
        case 0xfe20:  // GDK_KEY_ISO_Left_Tab (Shift+Tab)
            guard focus == once || focus == always, let row = gtk.gtk_list_box_get_selected_row(list) else { return false }
            _ = gtk.gtk_widget_grab_focus(row)
            return true
        case 0xff1b:  // GDK_KEY_Escape
            cancel()
            return true
        case 0xff0d, 0xff8d, 0xfe34:  // GDK_KEY_Return, GDK_KEY_KP_Enter, GDK_KEY_ISO_Enter
            if gtk.gtk_widget_has_focus(cancelButton) != 0 { cancel() } else { pick() }
            return true
        default:
            return false
        }
    }

    /// The opener check button only means something for "Always".
    func alwaysToggled() {
        guard let openerOnly else { return }
        gtk.gtk_widget_set_sensitive(openerOnly, gtk.gtk_check_button_get_active(always))
    }
}

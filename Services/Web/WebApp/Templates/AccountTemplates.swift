extension Templates {
    static let signIn = #"""
        {{<layout}}{{$content}}
        <form method="post" action="/signin" class="card stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="next" value="{{next}}">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="{{email}}">
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required>
        <button type="submit" class="primary">Sign in</button>
        </form>
        <p>New to Sous? <a href="/register">Create an account</a>. Forgot your password? <a href="/forgot">Reset it</a>.</p>
        {{/content}}{{/layout}}
        """#

    static let forgot = #"""
        {{<layout}}{{$content}}
        <form method="post" action="/forgot" class="card stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <p>Give your account's email: a code to set a new password goes to it, valid for 30 minutes.</p>
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="{{email}}">
        <button type="submit" class="primary">Mail me a code</button>
        </form>
        <p>Have a code? <a href="/reset">Set a new password</a>. Remembered it? <a href="/signin">Sign in</a>.</p>
        {{/content}}{{/layout}}
        """#

    static let reset = #"""
        {{<layout}}{{$content}}
        <form method="post" action="/reset" class="card stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="code">Code from the mail</label>
        <input id="code" name="code" required autocomplete="one-time-code" autocapitalize="characters" maxlength="20" value="{{code}}">
        <label for="password">New password <span class="hint">(at least 10 characters)</span></label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minlength="10">
        <button type="submit" class="primary">Set the password</button>
        </form>
        <p>Every device signed in to the account is signed out. No code? <a href="/forgot">Ask for one</a>.</p>
        {{/content}}{{/layout}}
        """#

    static let verify = #"""
        {{<layout}}{{$content}}
        <form method="post" action="/verify" class="card stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <p>A code went to your email when you made your account, valid for 24 hours. It confirms the email is yours; then you can sign in.</p>
        <label for="code">Code from the mail</label>
        <input id="code" name="code" required autocomplete="one-time-code" autocapitalize="characters" maxlength="20" value="{{code}}">
        <button type="submit" class="primary">Confirm my email</button>
        </form>
        <form method="post" action="/verify/resend" class="card stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="email">No code, or it expired? Your email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="{{email}}">
        <button type="submit">Mail me a new code</button>
        </form>
        {{/content}}{{/layout}}
        """#

    static let register = #"""
        {{<layout}}{{$content}}
        <form method="post" action="/register" class="card stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="name">Your name</label>
        <input id="name" name="name" autocomplete="name" required maxlength="100" value="{{name}}">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required value="{{email}}">
        <label for="password">Password <span class="hint">(at least 10 characters)</span></label>
        <input id="password" name="password" type="password" autocomplete="new-password" required minlength="10">
        <button type="submit" class="primary">Create account</button>
        </form>
        <p>Have an account? <a href="/signin">Sign in</a>.</p>
        {{/content}}{{/layout}}
        """#

    static let account = #"""
        {{<layout}}{{$content}}
        {{>more_tabs}}
        <section class="card">
        <h2>You</h2>
        <p>{{account.name}} · {{account.email}}</p>
        </section>
        <section class="card">
        <h2>Where you are signed in</h2>
        <ul class="rows">
        {{#sessions}}
        <li><span>{{device}}{{#current}} <strong>(this browser)</strong>{{/current}}<br><small>since {{created}} · until {{expires}}</small></span>
        {{^current}}<form method="post" action="/account/sessions/end"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="session" value="{{id}}"><button type="submit">End</button></form>{{/current}}
        </li>
        {{/sessions}}
        </ul>
        </section>
        <section class="card">
        <h2>Change password</h2>
        <form method="post" action="/account/password" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="current">Current password</label>
        <input id="current" name="current" type="password" autocomplete="current-password" required>
        <label for="new">New password</label>
        <input id="new" name="new" type="password" autocomplete="new-password" required minlength="10">
        <button type="submit">Change password</button>
        </form>
        </section>
        <section class="card">
        <h2>Take your data with you</h2>
        <p><a href="/account/export" download>Download everything (JSON)</a></p>
        <form method="post" action="/account/import" enctype="multipart/form-data" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="archive">Import an archive (into an empty account)</label>
        <input id="archive" name="archive" type="file" accept="application/json,.json" required>
        <button type="submit">Import</button>
        </form>
        </section>
        <section class="card danger">
        <h2>Delete account</h2>
        <p>Erases your diary, goals, recipes and everything else of yours from every service. It cannot be undone.</p>
        <form method="post" action="/account/delete" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="delete-password">Your password</label>
        <input id="delete-password" name="password" type="password" autocomplete="current-password" required>
        <button type="submit" class="danger">Delete my account</button>
        </form>
        </section>
        {{/content}}{{/layout}}
        """#
}

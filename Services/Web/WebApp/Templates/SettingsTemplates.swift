extension Templates {
    /// The pages under "More", one tab each (`tab_<name>` marks the current one).
    static let moreTabs = #"""
        <nav class="tabs" aria-label="More">
        <a href="/settings"{{#tab_profile}} aria-current="page"{{/tab_profile}}>Profile</a>
        <a href="/household"{{#tab_household}} aria-current="page"{{/tab_household}}>Household</a>
        <a href="/friends"{{#tab_friends}} aria-current="page"{{/tab_friends}}>Friends</a>
        <a href="/coeliac"{{#tab_coeliac}} aria-current="page"{{/tab_coeliac}}>Coeliac diary</a>
        <a href="/reminders"{{#tab_reminders}} aria-current="page"{{/tab_reminders}}>Reminders</a>
        <a href="/account"{{#tab_account}} aria-current="page"{{/tab_account}}>Account</a>
        </nav>
        """#

    static let settings = #"""
        {{<layout}}{{$content}}
        {{>more_tabs}}
        {{#welcome}}<p class="notice" role="status">Welcome! Tell Sous how you cook; you can change it any time.</p>{{/welcome}}
        <form method="post" action="/settings" class="card stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="people">People you cook for</label>
        <input id="people" name="people" type="number" min="1" max="20" value="{{profile.people}}" required>
        <label for="patience">Cooking patience</label>
        <select id="patience" name="patience">{{#patience}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/patience}}</select>
        <fieldset><legend>Diets</legend>{{#diets}}<label class="check"><input type="checkbox" name="diets" value="{{value}}"{{#on}} checked{{/on}}> {{value}}</label>{{/diets}}</fieldset>
        <fieldset><legend>Allergens to avoid</legend>{{#allergens}}<label class="check"><input type="checkbox" name="allergens" value="{{value}}"{{#on}} checked{{/on}}> {{value}}</label>{{/allergens}}</fieldset>
        <label for="dislikes">Ingredients you dislike (ids or names, separated by commas)</label>
        <input id="dislikes" name="dislikes" value="{{dislikes}}" maxlength="2000">
        <fieldset><legend>Equipment you have</legend>{{#equipment}}<label class="check"><input type="checkbox" name="equipment" value="{{value}}"{{#on}} checked{{/on}}> {{value}}</label>{{/equipment}}</fieldset>
        <label for="timeZone">Time zone</label>
        <input id="timeZone" name="timeZone" value="{{profile.timeZone}}" required maxlength="64" list="zones">
        <datalist id="zones">{{#zones}}<option value="{{.}}">{{/zones}}</datalist>
        <label for="units">Units</label>
        <select id="units" name="units"><option value="metric"{{#metric}} selected{{/metric}}>metric (g, ml)</option><option value="us"{{^metric}} selected{{/metric}}>US (oz, cups)</option></select>
        <label class="check"><input type="checkbox" name="remindersEnabled" value="1"{{#profile.remindersEnabled}} checked{{/profile.remindersEnabled}}> Remind me to log my food</label>
        <label for="reminderHour">Reminder hour</label>
        <input id="reminderHour" name="reminderHour" type="number" min="0" max="23" value="{{profile.reminderHour}}">
        <button type="submit" class="primary">Save</button>
        </form>
        {{/content}}{{/layout}}
        """#

    static let household = #"""
        {{<layout}}{{$content}}
        {{>more_tabs}}
        <section class="card">
        <h2>{{household.name}}</h2>
        <p>Cooking for {{household.people}} people.</p>
        <ul class="rows">
        {{#members}}
        <li><span>{{name}} <small>{{role}}{{#mayInvite}} · may invite{{/mayInvite}}</small></span>
        {{#removable}}<form method="post" action="/household/remove"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="user" value="{{user}}"><button type="submit" class="link">Remove</button></form>
        <form method="post" action="/household/transfer"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="user" value="{{user}}"><button type="submit" class="link">Make owner</button></form>{{/removable}}
        </li>
        {{/members}}
        </ul>
        </section>
        {{#isOwner}}
        <form method="post" action="/household/update" class="card stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="household-name">Name</label><input id="household-name" name="name" value="{{household.name}}" maxlength="100">
        <label for="household-people">People to cook for (empty: one per member)</label><input id="household-people" name="people" type="number" min="1" max="20" value="{{peopleOverride}}">
        <button type="submit">Save</button>
        </form>
        {{/isOwner}}
        <section class="card">
        <h2>Invite someone</h2>
        {{#newCode}}<p class="notice" role="status">Give them this code (valid 7 days, once): <strong class="code">{{newCode}}</strong></p>{{/newCode}}
        <form method="post" action="/household/invite"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Create an invitation code</button></form>
        {{^empty(invitations)}}<ul class="rows">{{#invitations}}<li><span>Code made {{created}}, expires {{expires}}</span>
        <form method="post" action="/household/revoke"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="id" value="{{id}}"><button type="submit" class="link">Revoke</button></form></li>{{/invitations}}</ul>{{/empty(invitations)}}
        </section>
        <section class="card">
        <h2>Join another household</h2>
        <form method="post" action="/household/join" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="code">Invitation code</label><input id="code" name="code" required maxlength="20" autocomplete="off">
        <button type="submit">Join</button>
        </form>
        </section>
        {{#canLeave}}
        <form method="post" action="/household/leave" class="card"><input type="hidden" name="csrf" value="{{csrf}}">
        <p>Leaving keeps your diary, goals and recipes and gives you a household of your own.</p>
        <button type="submit" class="danger">Leave this household</button></form>
        {{/canLeave}}
        {{/content}}{{/layout}}
        """#

    static let reminders = #"""
        {{<layout}}{{$content}}
        {{>more_tabs}}
        <section class="card">
        <h2>Next reminder</h2>
        <p>{{next}}</p>
        <p><a href="/settings">Change the hour or switch reminders off</a></p>
        </section>
        <section class="card stack">
        <h2>Where reminders go</h2>
        {{#empty(channels)}}<p>Only here and to <code>sous reminders watch</code>. Add your mail, an ntfy topic, a webhook, or this browser.</p>{{/empty(channels)}}
        <ul class="rows">
        {{#channels}}
        <li><span>{{kind}}: {{#label}}{{label}} <small>{{address}}</small>{{/label}}{{^label}}{{address}}{{/label}}{{^enabled}} <small class="error-text">switched off: {{disabledReason}}</small>{{/enabled}}</span>
        <form method="post" action="/reminders/channels/test"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="id" value="{{id}}"><button type="submit" class="link">Send a test</button></form>
        <form method="post" action="/reminders/channels/remove"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="id" value="{{id}}"><button type="submit" class="link">Remove</button></form>
        </li>
        {{/channels}}
        </ul>
        <form method="post" action="/reminders/channels/add" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="channel-kind">Where</label>
        <select id="channel-kind" name="kind">{{#kinds}}<option value="{{.}}">{{.}}</option>{{/kinds}}</select>
        <label for="channel-address">Address (mail address, ntfy topic or URL, or https webhook URL)</label>
        <input id="channel-address" name="address" required maxlength="2000">
        <label for="channel-label">Name (optional)</label>
        <input id="channel-label" name="label" maxlength="60">
        <button type="submit">Add</button>
        </form>
        <form method="post" action="/reminders/channels/push" id="push-subscribe" data-key="{{pushKey}}" hidden>
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="label" value="this browser">
        <button type="submit">Show reminders in this browser</button>
        </form>
        </section>
        <form method="post" action="/reminders/channels/quiet" class="card stack">
        <h2>Quiet hours</h2>
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label class="check"><input type="checkbox" name="quiet" value="1"{{#quiet}} checked{{/quiet}}> Keep channels silent (a reminder due then arrives when they end)</label>
        <label for="quiet-from">From (hour, 0–23)</label><input id="quiet-from" name="from" type="number" min="0" max="23" value="{{quietFrom}}">
        <label for="quiet-to">Until (hour, 0–23)</label><input id="quiet-to" name="to" type="number" min="0" max="23" value="{{quietTo}}">
        <button type="submit">Save</button>
        </form>
        <section class="card">
        <h2>Past reminders</h2>
        {{#empty(log)}}<p>None yet.</p>{{/empty(log)}}
        <ul class="rows">{{#log}}<li><span>{{date}}: {{outcome}}{{#reason}} <small>({{reason}})</small>{{/reason}}{{#deliveries}}<br><small>{{kind}} {{name}}: {{state}}{{#reason}} ({{reason}}){{/reason}}</small>{{/deliveries}}</span></li>{{/log}}</ul>
        </section>
        {{/content}}{{/layout}}
        """#

    static let coeliac = #"""
        {{<layout}}{{$content}}
        {{>more_tabs}}
        <section class="card">
        <h2>Today's test</h2>
        <form method="post" action="/coeliac/predict" class="inline"><input type="hidden" name="csrf" value="{{csrf}}">
        <span>I expect today's test to be</span>
        <button type="submit" name="expectsGluten" value="1">positive</button>
        <button type="submit" name="expectsGluten" value="0">negative</button>
        </form>
        <form method="post" action="/coeliac/result" class="inline"><input type="hidden" name="csrf" value="{{csrf}}">
        <span>Today's result was</span>
        <button type="submit" name="positive" value="1">positive</button>
        <button type="submit" name="positive" value="0">negative</button>
        </form>
        <p>{{stats}}</p>
        {{^empty(badges)}}<p>Badges: {{#badges}}<span class="badge">{{streak}} days</span> {{/badges}}</p>{{/empty(badges)}}
        </section>
        <section class="card chart">
        <h2>This month</h2>
        <figure>{{{calendar}}}<figcaption>Predictions and test results by day.</figcaption></figure>
        </section>
        <section class="card">
        <h2>Journal</h2>
        <form method="post" action="/coeliac/journal" enctype="multipart/form-data" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="journal-title">What happened</label><input id="journal-title" name="title" required maxlength="200">
        <label for="journal-description">Details (optional)</label><textarea id="journal-description" name="description" rows="3" maxlength="5000"></textarea>
        <label for="journal-photo">Photo (optional; JPEG, PNG or WebP)</label><input id="journal-photo" name="photo" type="file" accept="image/jpeg,image/png,image/webp">
        <button type="submit">Add to the journal</button>
        </form>
        <ul class="rows">
        {{#journal}}<li><span><strong>{{title}}</strong> <small>{{date}} {{time}}</small>{{#description}}<br>{{description}}{{/description}}</span>{{#hasPhoto}}<img class="thumb" src="/coeliac/journal/{{id}}/photo" alt="Photo for {{title}}">{{/hasPhoto}}</li>{{/journal}}
        </ul>
        </section>
        {{/content}}{{/layout}}
        """#
}

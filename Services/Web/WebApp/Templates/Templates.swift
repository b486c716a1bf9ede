/// Every page template by name. Each page names the layout as its parent and fills its
/// `content` block; `{{value}}` is escaped, `{{{chart}}}` (SVG from SousCharts) is not.
enum Templates {
    static let all: [String: String] = [
        "layout": layout, "error": error, "form_error": formError,
        "signin": signIn, "register": register, "account": account, "forgot": forgot, "reset": reset, "verify": verify,
        "recipes": recipes, "recipe_card": recipeCard, "recipe": recipe, "recipe_form": recipeForm, "recipe_import": recipeImport,
        "week": week, "week_templates": weekTemplates, "calendar": calendar, "list": list, "list_body": listBody, "orders": orders,
        "cook": cook,
        "diary": diary, "goals": goals,
        "coeliac": coeliac,
        "pantry": pantry, "settings": settings, "household": household, "reminders": reminders, "more_tabs": moreTabs,
        "friends": friends, "friend_progress": friendProgress, "friends_board": friendsBoard,
    ]

    static let layout = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>{{title}} · Sous</title>
        <link rel="stylesheet" href="/static/app.css">
        <link rel="manifest" href="/manifest.webmanifest">
        <link rel="icon" href="/static/icon.svg" type="image/svg+xml">
        <script src="/static/app.js" defer></script>
        </head>
        <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
        <a class="brand" href="/">Sous</a>
        {{#signedIn}}
        <nav aria-label="Main">
        <a href="/week"{{#nav_week}} aria-current="page"{{/nav_week}}>Week</a>
        <a href="/list"{{#nav_list}} aria-current="page"{{/nav_list}}>List</a>
        <a href="/recipes"{{#nav_recipes}} aria-current="page"{{/nav_recipes}}>Recipes</a>
        <a href="/diary"{{#nav_diary}} aria-current="page"{{/nav_diary}}>Diary</a>
        <a href="/settings"{{#nav_settings}} aria-current="page"{{/nav_settings}}>More</a>
        </nav>
        {{/signedIn}}
        </header>
        <main id="main" tabindex="-1">
        <h1>{{title}}</h1>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error" role="alert" id="form-error">{{error}}</p>{{/error}}
        {{$content}}{{/content}}
        </main>
        {{#signedIn}}
        <footer class="bottom">
        <span>Signed in as {{name}}</span>
        <form method="post" action="/signout"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" class="link">Sign out</button></form>
        </footer>
        {{/signedIn}}
        </body>
        </html>
        """#

    static let error = #"""
        {{<layout}}{{$content}}
        <p class="error-page">{{message}}</p>
        <p><a href="/">Back to Sous</a></p>
        {{/content}}{{/layout}}
        """#

    static let formError = #"""
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        """#
}

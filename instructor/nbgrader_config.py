"""nbgrader settings for the course (read by ``tools/course.py``, copied into build/course/).

The course directory nbgrader works in is ``build/course/`` (generated, never committed):
``source/`` there is a copy of ``instructor/source/``, the single source of every graded
notebook (solutions between ``### BEGIN SOLUTION`` / ``### END SOLUTION``, hidden tests between
``### BEGIN HIDDEN TESTS`` / ``### END HIDDEN TESTS``).
"""

c = get_config()  # noqa: F821 -- nbgrader's config loader defines get_config

c.CourseDirectory.course_id = "nvlearn"
c.CourseDirectory.db_url = "sqlite:///gradebook.db"

# A blank answer must leave the notebook runnable: the stub is a comment, and every answer
# cell starts with ``answer = None`` above its solution, so the self-check says "not yet".
c.ClearSolutions.code_stub = {"python": "# YOUR ANSWER HERE"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE (two or three sentences)"

# Student code: each notebook in its own kernel process; a cell that runs longer than this is
# interrupted (its question scores zero) and grading goes on with the next cell.
# tools/course.py grade --timeout overrides it. 300 s: the slowest worked solution (notebook
# 08, exercise 9: four 256-GPU simulations) takes about 100 s on a busy 2-core machine.
c.Execute.timeout = 300
c.Execute.interrupt_on_timeout = True
